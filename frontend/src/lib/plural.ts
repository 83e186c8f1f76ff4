/** counted says a number with its noun: "1 use", "3 uses", "1 demerit". */
export function counted(n: number, singular: string, plural = singular + 's'): string {
  return `${n} ${n === 1 ? singular : plural}`
}
