import { QueryClientProvider } from '@tanstack/react-query'
import { RouterProvider } from '@tanstack/react-router'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { createQueryClient } from './lib/query-client'
import { createAppRouter } from './router'
import './styles/app.css'

const queryClient = createQueryClient()
const router = createAppRouter(queryClient)

const rootElement = document.getElementById('root')
if (!rootElement) throw new Error('The #root element is missing from index.html')

createRoot(rootElement).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
)

// After a navigation between pages, focus goes to the new page's heading (features/navigation,
// docs/decisions/048). Loaded after the first paint: a first load leaves focus to the browser.
import('./features/navigation/route-focus')
  .then(({ installRouteFocus }) => installRouteFocus(router))
  .catch((error: unknown) => console.warn('Focus management after navigation could not be loaded:', error))
