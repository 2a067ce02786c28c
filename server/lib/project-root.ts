import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The project's folder: the nearest one above this module that holds package.json. The same from
 * the sources (server/lib/) and from the compiled server (dist/, where this code sits in a bundle
 * at another depth), so the files read at run time (web/dist, migrations/) are found from both.
 */
export const PROJECT_ROOT = findProjectRoot(dirname(fileURLToPath(import.meta.url)))

function findProjectRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) throw new Error(`No package.json above ${from}`)
  }
}
