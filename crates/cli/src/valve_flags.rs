//! Valve's spelling of flags: one dash before a long name (`-game`, `-fast`).

/// Valve's tools spell long flags with one dash (`-game`, `-fast`); accept those too by
/// rewriting `-name` to `--name` for every multi-letter flag the parser knows.
pub fn normalise_valve_flags(args: impl Iterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    use clap::CommandFactory;
    let mut long_names = std::collections::HashSet::new();
    fn collect(cmd: &clap::Command, names: &mut std::collections::HashSet<String>) {
        for arg in cmd.get_arguments() {
            if let Some(l) = arg.get_long() {
                names.insert(l.to_string());
            }
        }
        for sub in cmd.get_subcommands() {
            collect(sub, names);
        }
    }
    collect(&crate::Cli::command(), &mut long_names);
    args.map(|a| match a.to_str() {
        Some(s)
            if s.len() > 2 && s.starts_with('-') && !s.starts_with("--") && long_names.contains(&s[1..]) =>
        {
            format!("-{s}").into()
        }
        _ => a,
    })
    .collect()
}
