//! A small text-level WGSL preprocessor: `#import module`, `#ifdef` / `#ifndef` /
//! `#else` / `#endif`, and `#unroll VAR BOUND` ... `#endunroll` (a loop over
//! VAR in 0..BOUND, written out as BOUND blocks `{ let VAR = k; ... }` when an
//! unroll count is given, so that arrays indexed by VAR get constant
//! indices). Its output is plain WGSL, so native and browser builds see the
//! same shader text.

use std::collections::HashSet;

/// Errors of the preprocessor; they name the module and line.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PreprocessError {
    #[error("{file}:{line}: unknown module `{module}` in #import")]
    UnknownModule { file: String, line: usize, module: String },
    #[error("{file}:{line}: `{directive}` without a matching #ifdef/#ifndef")]
    Unbalanced {
        file: String,
        line: usize,
        directive: String,
    },
    #[error("{file}: #ifdef/#ifndef not closed by #endif")]
    Unclosed { file: String },
    #[error("{file}:{line}: unknown directive `{directive}`")]
    UnknownDirective {
        file: String,
        line: usize,
        directive: String,
    },
    #[error("{file}:{line}: #import cycle through `{module}`")]
    ImportCycle { file: String, line: usize, module: String },
}

/// Resolves a module name to its source text.
pub trait ModuleSource {
    fn module(&self, name: &str) -> Option<std::borrow::Cow<'_, str>>;
}

/// Expands `root` (named `name` in errors). Each module is included once, at its
/// first `#import`; `defines` selects `#ifdef` branches; `#unroll` blocks stay
/// loops.
pub fn preprocess(
    name: &str,
    root: &str,
    modules: &dyn ModuleSource,
    defines: &HashSet<&str>,
) -> Result<String, PreprocessError> {
    preprocess_unrolled(name, root, modules, defines, None)
}

/// [`preprocess`], writing `#unroll` blocks out `unroll` times when given.
pub fn preprocess_unrolled(
    name: &str,
    root: &str,
    modules: &dyn ModuleSource,
    defines: &HashSet<&str>,
    unroll: Option<u32>,
) -> Result<String, PreprocessError> {
    let ctx = Ctx {
        modules,
        defines,
        unroll,
    };
    let mut state = State {
        included: HashSet::new(),
        stack: vec![name.to_string()],
        out: String::new(),
    };
    expand(name, root, &ctx, &mut state)?;
    Ok(state.out)
}

/// What an expansion has done so far: the modules included, the import
/// chain being expanded (to refuse cycles) and the text written.
struct State {
    included: HashSet<String>,
    stack: Vec<String>,
    out: String,
}

struct Ctx<'a> {
    modules: &'a dyn ModuleSource,
    defines: &'a HashSet<&'a str>,
    unroll: Option<u32>,
}

fn expand(file: &str, text: &str, ctx: &Ctx<'_>, st: &mut State) -> Result<(), PreprocessError> {
    let defines = ctx.defines;
    // an open #unroll: (its line, VAR, BOUND, body so far)
    let mut unrolling: Option<(usize, String, String, String)> = None;
    // Each entry: (this branch active, some branch of this #if already taken, parent active).
    let mut conds: Vec<(bool, bool)> = Vec::new();
    let active = |conds: &Vec<(bool, bool)>| conds.iter().all(|c| c.0);
    for (idx, raw) in text.lines().enumerate() {
        let line = idx + 1;
        let trimmed = raw.trim_start();
        if let Some((_, var, bound, body)) = &mut unrolling {
            if trimmed.trim_end() != "#endunroll" {
                body.push_str(raw);
                body.push('\n');
                continue;
            }
            if active(&conds) {
                for copy in unrolled(ctx.unroll, var, bound, body) {
                    expand(file, &copy, ctx, st)?;
                }
            }
            unrolling = None;
            continue;
        }
        let Some(directive) = trimmed.strip_prefix('#') else {
            if active(&conds) {
                st.out.push_str(raw);
                st.out.push('\n');
            }
            continue;
        };
        let mut words = directive.split_whitespace();
        let word = words.next().unwrap_or("");
        let arg = words.next().unwrap_or("");
        let err_unbalanced = || PreprocessError::Unbalanced {
            file: file.into(),
            line,
            directive: format!("#{word}"),
        };
        match word {
            "unroll" => {
                let bound = words.next().unwrap_or("").to_string();
                unrolling = Some((line, arg.to_string(), bound, String::new()));
            }
            "endunroll" => return Err(err_unbalanced()),
            "ifdef" | "ifndef" => {
                let holds = defines.contains(arg) == (word == "ifdef");
                conds.push((holds, holds));
            }
            "else" => {
                let top = conds.last_mut().ok_or_else(err_unbalanced)?;
                *top = (!top.1, true);
            }
            "endif" => {
                conds.pop().ok_or_else(err_unbalanced)?;
            }
            "import" if active(&conds) => import((file, line), arg, ctx, st)?,
            "import" => {}
            _ => {
                return Err(PreprocessError::UnknownDirective {
                    file: file.into(),
                    line,
                    directive: format!("#{word}"),
                })
            }
        }
    }
    if !conds.is_empty() || unrolling.is_some() {
        return Err(PreprocessError::Unclosed { file: file.into() });
    }
    Ok(())
}

/// The copies of an `#unroll VAR BOUND` body: `n` blocks with VAR bound to
/// 0..n, or one loop when not unrolling.
fn unrolled(unroll: Option<u32>, var: &str, bound: &str, body: &str) -> Vec<String> {
    match unroll {
        Some(n) => (0..n).map(|k| format!("{{\nlet {var} = {k}u;\n{body}}}\n")).collect(),
        None => vec![format!("for (var {var} = 0u; {var} < {bound}; {var}++) {{\n{body}}}\n")],
    }
}

/// `#import module` at `(file, line)`: expands it once per shader, refusing
/// cycles and unknown modules.
fn import((file, line): (&str, usize), module: &str, ctx: &Ctx<'_>, st: &mut State) -> Result<(), PreprocessError> {
    if st.stack.iter().any(|m| m == module) {
        return Err(PreprocessError::ImportCycle {
            file: file.into(),
            line,
            module: module.into(),
        });
    }
    if !st.included.insert(module.to_string()) {
        return Ok(());
    }
    let src = ctx
        .modules
        .module(module)
        .ok_or_else(|| PreprocessError::UnknownModule {
            file: file.into(),
            line,
            module: module.into(),
        })?;
    st.stack.push(module.to_string());
    expand(module, &src, ctx, st)?;
    st.stack.pop();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;
    use std::collections::HashMap;

    struct Map(HashMap<&'static str, &'static str>);
    impl ModuleSource for Map {
        fn module(&self, name: &str) -> Option<Cow<'_, str>> {
            self.0.get(name).map(|s| Cow::Borrowed(*s))
        }
    }

    fn run(root: &str, mods: &[(&'static str, &'static str)], defs: &[&str]) -> Result<String, PreprocessError> {
        let m = Map(mods.iter().copied().collect());
        preprocess("root", root, &m, &defs.iter().copied().collect())
    }

    #[test]
    fn imports_once_in_order() {
        let out = run(
            "#import a\n#import b\nmain\n",
            &[("a", "A\n"), ("b", "#import a\nB\n")],
            &[],
        )
        .unwrap();
        assert_eq!(out, "A\nB\nmain\n");
    }

    #[test]
    fn ifdef_else_nesting() {
        let src = "#ifdef X\nx\n#ifndef Y\nnoty\n#else\ny\n#endif\n#else\nnotx\n#endif\nend\n";
        assert_eq!(run(src, &[], &["X"]).unwrap(), "x\nnoty\nend\n");
        assert_eq!(run(src, &[], &["X", "Y"]).unwrap(), "x\ny\nend\n");
        assert_eq!(run(src, &[], &[]).unwrap(), "notx\nend\n");
    }

    #[test]
    fn unroll_writes_blocks_or_keeps_the_loop() {
        let m = Map(HashMap::new());
        let src = "#unroll s S\n#ifdef X\nx[s] = s;\n#endif\n#endunroll\nend\n";
        let defs: HashSet<&str> = ["X"].into_iter().collect();
        let rolled = preprocess("root", src, &m, &defs).unwrap();
        assert_eq!(rolled, "for (var s = 0u; s < S; s++) {\nx[s] = s;\n}\nend\n");
        let unrolled = preprocess_unrolled("root", src, &m, &defs, Some(2)).unwrap();
        assert_eq!(
            unrolled,
            "{\nlet s = 0u;\nx[s] = s;\n}\n{\nlet s = 1u;\nx[s] = s;\n}\nend\n"
        );
        assert!(preprocess("root", "#unroll s S\n", &m, &defs).is_err());
    }

    #[test]
    fn imports_inside_inactive_branch_are_skipped() {
        let out = run("#ifdef X\n#import missing\n#endif\nok\n", &[], &[]).unwrap();
        assert_eq!(out, "ok\n");
    }

    #[test]
    fn errors_are_reported() {
        assert!(matches!(
            run("#import nope\n", &[], &[]),
            Err(PreprocessError::UnknownModule { line: 1, .. })
        ));
        assert!(matches!(
            run("#endif\n", &[], &[]),
            Err(PreprocessError::Unbalanced { .. })
        ));
        assert!(matches!(
            run("#ifdef A\n", &[], &[]),
            Err(PreprocessError::Unclosed { .. })
        ));
        assert!(matches!(
            run("#pragma x\n", &[], &[]),
            Err(PreprocessError::UnknownDirective { .. })
        ));
        assert!(matches!(
            run("#import a\n", &[("a", "#import b\n"), ("b", "#import a\n")], &[]),
            Err(PreprocessError::ImportCycle { .. })
        ));
    }
}
