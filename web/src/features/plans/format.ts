/**
 * Whole dollars as the spec writes them: 50 → "$50", 1200 → "$1,200". Written out rather than with
 * Intl.NumberFormat, whose first use cost the landing page's hydration ~10 ms of main thread on a
 * fast machine (four times that on a phone) for the same text (docs/decisions/052).
 */
export function formatPrice(dollars: number): string {
  return `$${String(Math.round(dollars)).replace(/\B(?=(\d{3})+$)/g, ',')}`
}
