/**
 * The one script a prerendered page (docs/decisions/052) loads before it has painted. Its HTML and
 * CSS are the whole first paint, and the app (main.tsx) only hydrates it; so the app is fetched
 * once the page has painted, and its bytes never compete with the stylesheet's on a slow network.
 * Then the app and the route's own chunks (listed by the build, scripts/web-build/prerender.mjs, on
 * this script's tag) are fetched side by side; the browser fetches what they import as it reads
 * them. Pages that are not prerendered load main.tsx directly (index.html).
 */
const tag = document.querySelector<HTMLScriptElement>('script[data-entry]')

function loadApp(entry: string, preload: string[]): void {
  for (const href of preload) import(/* @vite-ignore */ href).catch(() => undefined)
  import(/* @vite-ignore */ entry).catch((error: unknown) => console.error('The app could not be loaded:', error))
}

if (tag?.dataset.entry) {
  const { entry } = tag.dataset
  const preload = (tag.dataset.preload ?? '').split(' ').filter(Boolean)
  // A frame, then a task: by then the browser has painted the page.
  requestAnimationFrame(() => setTimeout(() => loadApp(entry, preload)))
}
