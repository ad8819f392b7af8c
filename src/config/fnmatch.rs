//! Shell-style patterns with the semantics of Python's `fnmatch.fnmatchcase` (what
//! checkpoints' `ignore` lists are written for): `*` any run of characters (also `.`), `?`
//! one character, `[seq]`, `[!seq]` with ranges `a-z`, an unclosed `[` is a literal, and
//! backslash is an ordinary character. Case-sensitive.

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Star,
    Any,
    Lit(char),
    Class {
        negate: bool,
        items: Vec<(char, char)>,
    },
}

fn parse(pat: &str) -> Vec<Tok> {
    let p: Vec<char> = pat.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < p.len() {
        let c = p[i];
        i += 1;
        match c {
            '*' => {
                if toks.last() != Some(&Tok::Star) {
                    toks.push(Tok::Star)
                }
            }
            '?' => toks.push(Tok::Any),
            '[' => {
                let mut j = i;
                let negate = j < p.len() && p[j] == '!';
                if negate {
                    j += 1;
                }
                if j < p.len() && p[j] == ']' {
                    j += 1;
                }
                while j < p.len() && p[j] != ']' {
                    j += 1;
                }
                if j >= p.len() {
                    toks.push(Tok::Lit('['));
                    continue;
                }
                let start = if negate { i + 1 } else { i };
                let content = &p[start..j];
                let mut items = Vec::new();
                let mut k = 0;
                while k < content.len() {
                    if k + 2 < content.len() && content[k + 1] == '-' {
                        items.push((content[k], content[k + 2]));
                        k += 3;
                    } else {
                        items.push((content[k], content[k]));
                        k += 1;
                    }
                }
                toks.push(Tok::Class { negate, items });
                i = j + 1;
            }
            c => toks.push(Tok::Lit(c)),
        }
    }
    toks
}

fn tok_matches(t: &Tok, c: char) -> bool {
    match t {
        Tok::Star => true,
        Tok::Any => true,
        Tok::Lit(l) => *l == c,
        Tok::Class { negate, items } => items.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negate,
    }
}

/// A compiled pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    text: String,
    toks: Vec<Tok>,
}

impl Pattern {
    pub fn new(text: &str) -> Self {
        Pattern {
            text: text.to_string(),
            toks: parse(text),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the whole of `name` matches.
    pub fn matches(&self, name: &str) -> bool {
        let s: Vec<char> = name.chars().collect();
        let t = &self.toks;
        let (mut pi, mut si) = (0usize, 0usize);
        let mut star: Option<(usize, usize)> = None;
        while si < s.len() {
            if pi < t.len() && t[pi] != Tok::Star && tok_matches(&t[pi], s[si]) {
                pi += 1;
                si += 1;
            } else if pi < t.len() && t[pi] == Tok::Star {
                star = Some((pi, si));
                pi += 1;
            } else if let Some((sp, ss)) = star {
                pi = sp + 1;
                si = ss + 1;
                star = Some((sp, ss + 1));
            } else {
                return false;
            }
        }
        while pi < t.len() && t[pi] == Tok::Star {
            pi += 1;
        }
        pi == t.len()
    }

    /// Whether the pattern matches `name` or a prefix of it that ends right before a `.`
    /// (so `blocks.0.attn1` also covers `blocks.0.attn1.inner`).
    pub fn matches_module(&self, name: &str) -> bool {
        self.matches(name)
            || name
                .match_indices('.')
                .any(|(i, _)| self.matches(&name[..i]))
    }
}

pub fn fnmatch(pattern: &str, name: &str) -> bool {
    Pattern::new(pattern).matches(name)
}

#[cfg(test)]
mod tests {
    use super::fnmatch;

    #[test]
    fn python_semantics() {
        // Each row was checked against Python's fnmatch.fnmatchcase.
        let cases: &[(&str, &str, bool)] = &[
            ("blocks.0.attn1", "blocks.0.attn1", true),
            ("blocks.*.attn1", "blocks.12.attn1", true),
            ("blocks.*", "blocks.1.attn2.x", true),
            ("*attn2", "transformer.blocks.3.attn2", true),
            ("blocks.?.attn1", "blocks.10.attn1", false),
            ("blocks.[0-2].attn1", "blocks.1.attn1", true),
            ("blocks.[0-2].attn1", "blocks.3.attn1", false),
            ("blocks.[!0-2].attn1", "blocks.3.attn1", true),
            ("blocks.[!0-2].attn1", "blocks.0.attn1", false),
            ("a[", "a[", true),
            ("[]]", "]", true),
            ("[!]]", "a", true),
            ("[!]]", "]", false),
            ("[a-]", "-", true),
            ("[z-a]", "m", false),
            ("Blocks.*", "blocks.1", false),
            ("a\\b", "a\\b", true),
            ("*", "", true),
            ("?", "", false),
            ("**a*b", "xxaxxb", true),
            ("*a*b", "xxaxxbc", false),
        ];
        for (p, s, want) in cases {
            assert_eq!(fnmatch(p, s), *want, "fnmatch({p:?}, {s:?})");
        }
    }

    #[test]
    fn module_prefixes() {
        let p = super::Pattern::new("blocks.0.attn1");
        assert!(p.matches_module("blocks.0.attn1.inner"));
        assert!(!p.matches_module("blocks.0.attn10"));
        assert!(!p.matches_module("blocks.0"));
    }
}
