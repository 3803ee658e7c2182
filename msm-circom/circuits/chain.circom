pragma circom 2.0.0;
include "circomlib/circuits/poseidon.circom";
template Chain(N) {
    signal input x;
    signal input y;
    signal output out;
    component h[N];
    signal acc[N + 1];
    acc[0] <== x;
    for (var i = 0; i < N; i++) {
        h[i] = Poseidon(2);
        h[i].inputs[0] <== acc[i];
        h[i].inputs[1] <== y;
        acc[i + 1] <== h[i].out;
    }
    out <== acc[N];
}
component main {public [y]} = Chain(4);
