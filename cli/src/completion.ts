// Shell completion scripts for bash and zsh, made from the verb list: verbs, their options, and stack names asked of the server.
export interface VerbWords { words: string[]; options?: Record<string, { type: string; short?: string }> }

/** "stack deploy" → "--wait --timeout …" lines, for the scripts' lookup tables */
function table(verbs: readonly VerbWords[]): { path: string; next: string; options: string }[] {
  const paths = new Map<string, Set<string>>();
  const options = new Map<string, string>();
  for (const v of verbs) {
    if (v.words[0]!.startsWith('__')) continue;
    for (let i = 0; i < v.words.length; i++) {
      const at = v.words.slice(0, i).join(' ');
      if (!paths.has(at)) paths.set(at, new Set());
      paths.get(at)!.add(v.words[i]!);
    }
    options.set(v.words.join(' '), ['--json', '--url', '--help', ...Object.keys(v.options ?? {}).map((o) => `--${o}`)].join(' '));
  }
  const all = new Set([...paths.keys(), ...options.keys()]);
  return [...all].map((path) => ({ path, next: [...(paths.get(path) ?? [])].join(' '), options: options.get(path) ?? '' }));
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function bashCompletion(verbs: readonly VerbWords[]): string {
  const rows = table(verbs);
  return `# dw completion for bash: eval "$(dw completion bash)" in ~/.bashrc
_dw_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" w i
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    case " $(_dw_next "$path") " in *" $w "*) path="\${path:+$path }$w" ;; *) break ;; esac
  done
  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$(_dw_options "$path")" -- "$cur")); return; fi
  local next; next="$(_dw_next "$path")"
  if [[ -n "$next" ]]; then COMPREPLY=($(compgen -W "$next" -- "$cur")); return; fi
  case "$path" in stack\\ *) COMPREPLY=($(compgen -W "$(dw __names stacks 2>/dev/null)" -- "$cur")) ;; *) COMPREPLY=($(compgen -f -- "$cur")) ;; esac
}
_dw_next() {
  case "$1" in
${rows.map((r) => `    ${quote(r.path)}) echo ${quote(r.next)} ;;`).join('\n')}
  esac
}
_dw_options() {
  case "$1" in
${rows.map((r) => `    ${quote(r.path)}) echo ${quote(r.options)} ;;`).join('\n')}
  esac
}
complete -F _dw_complete dw
`;
}

export function zshCompletion(verbs: readonly VerbWords[]): string {
  return `#compdef dw
# dw completion for zsh: eval "$(dw completion zsh)" in ~/.zshrc (after compinit)
autoload -U bashcompinit && bashcompinit
${bashCompletion(verbs).split('\n').slice(1).join('\n')}`;
}
