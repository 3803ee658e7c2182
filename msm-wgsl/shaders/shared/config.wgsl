// Constants shared by the host and every pass. Keep in sync with msm-core's
// `layout` module (a test asserts the values match).

// Words of one packed field element in storage.
const FQ_WORDS: u32 = 8u;
// Bit 31 of an l0_index entry: the digit was negative (subtract the base).
const SIGN_BIT: u32 = 0x80000000u;
