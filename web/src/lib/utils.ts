import { clsx, type ClassValue } from 'clsx'
import { twMerge } from './tailwind-merge.gen'

/** Joins class names and lets later Tailwind classes override earlier ones (shadcn's helper). */
export function cn(...inputs: ClassValue[]): string {
  return twMerge(clsx(inputs))
}
