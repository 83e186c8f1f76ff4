/**
 * A model's name as Ollama lists it: with its tag, ":latest" when it names
 * none ("qwen3" is "qwen3:latest"); the tag follows the last ':' of the
 * last '/'-separated part, so a registry's port is no tag. The same rule
 * as the backend's (internal/modelname).
 */
export function listedName(name: string): string {
  const m = name.trim()
  return m && !m.slice(m.lastIndexOf('/') + 1).includes(':') ? `${m}:latest` : m
}

/**
 * The model a new chat starts with: the default chosen in Settings when it
 * is installed, else the one named at start-up (--model, $SHRIMP_MODEL),
 * else the first installed. Each is taken as Ollama lists it.
 */
export function defaultModel(installed: string[], chosen: string, started: string): string {
  for (const m of [chosen, started].map(listedName)) if (m && installed.includes(m)) return m
  return installed[0] ?? ''
}
