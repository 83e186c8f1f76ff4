/**
 * The model a new chat starts with: the default chosen in Settings when it
 * is installed, else the one named at start-up (--model, $SHRIMP_MODEL;
 * "qwen3" is "qwen3:latest", as Ollama reads it), else the first installed.
 */
export function defaultModel(installed: string[], chosen: string, started: string): string {
  const tagged = (m: string) => (m && !m.includes(':') ? `${m}:latest` : m)
  for (const m of [chosen, started, tagged(started)]) if (m && installed.includes(m)) return m
  return installed[0] ?? ''
}
