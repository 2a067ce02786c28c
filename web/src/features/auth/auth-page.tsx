import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { lazy, Suspense, useEffect, useRef, useState } from 'react'
import { PagePending } from '#web/components/route-feedback'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '#web/components/ui/card'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '#web/components/ui/tabs'
import { useDocumentTitle } from '#web/components/use-document-title'
import { AuthLayout, AuthProgress } from './components/auth-layout'
import { LoginForm } from './components/login-form'
import { SignupForm } from './components/signup-form'
import { partnerProgramOf, type AuthSearch, type AuthTab } from './search'
import { meQueryOptions, type SessionUser } from './api'
import { startSession } from './session'
import { usePostLoginNavigate } from './use-post-login-navigate'

// Loaded on demand, as none of them is part of the first paint of the two tabs: the reset request
// (a dialog), and the sign-in's code step and the screens of the emailed links.
const loadForgotPasswordDialog = () => import('./components/forgot-password-dialog')
const ForgotPasswordDialog = lazy(loadForgotPasswordDialog)
const AuthStepView = lazy(() => import('./components/auth-step-view'))

/**
 * /auth: the login and sign-up tabs, the sign-in's code step after the password when two-factor
 * sign-in is on (mode=two-factor), or one of the emailed links (mode=confirm, mode=reset,
 * mode=invite, mode=change-email; the token in the fragment).
 */
export function AuthPage({ search, hash }: { search: AuthSearch; hash: string }) {
  if (search.mode) {
    return (
      <Suspense fallback={<PagePending />}>
        <AuthStepView mode={search.mode} search={search} hash={hash} />
      </Suspense>
    )
  }
  return <SignInView search={search} />
}

function SignInView({ search }: { search: AuthSearch }) {
  const navigate = useNavigate({ from: '/auth' })
  const queryClient = useQueryClient()
  const me = useQuery(meQueryOptions())
  const continueToApp = usePostLoginNavigate()
  // Set once this screen has decided where to go, so a second answer never navigates twice.
  const leaving = useRef(false)
  const partnerProgram = partnerProgramOf(search)
  const tab: AuthTab = search.tab ?? (partnerProgram ? 'signup' : 'login')
  const [forgot, setForgot] = useState<{ open: boolean; email: string } | null>(null)
  const forgotButtonRef = useRef<HTMLButtonElement>(null)
  useDocumentTitle(tab === 'login' ? 'Log in' : 'Create account')

  // A session already exists: straight on, by returnTo or the post-login routing.
  const { returnTo } = search
  useEffect(() => {
    if (!me.data || leaving.current) return
    leaving.current = true
    void continueToApp(returnTo)
  }, [me.data, continueToApp, returnTo])

  function onLoggedIn(user: SessionUser) {
    leaving.current = true
    startSession(queryClient, user)
    void continueToApp(returnTo)
  }

  function onSignedUp(user: SessionUser) {
    leaving.current = true
    startSession(queryClient, user)
    void navigate({ to: '/payment', replace: true })
  }

  if (me.data) {
    return (
      <AuthLayout>
        <AuthProgress title="You're signed in">Taking you to your account…</AuthProgress>
      </AuthLayout>
    )
  }

  return (
    <AuthLayout>
      <div className="mb-8 text-center">
        <h1 className="text-3xl font-bold tracking-tight">Log in or create your account</h1>
        <p className="mt-2 text-muted-foreground">Pick up where you left off, or start your coaching in a minute.</p>
      </div>
      <Tabs
        value={tab}
        onValueChange={(value) => void navigate({ search: (previous) => ({ ...previous, tab: value as AuthTab }), replace: true })}
      >
        <TabsList className="grid w-full grid-cols-2">
          <TabsTrigger value="login">Login</TabsTrigger>
          <TabsTrigger value="signup">Create Account</TabsTrigger>
        </TabsList>
        {/* Both panels stay mounted (hidden when inactive) so switching tabs keeps what was typed. */}
        <TabsContent value="login" forceMount hidden={tab !== 'login'}>
          <Card>
            <CardHeader>
              <CardTitle as="h2">Welcome back</CardTitle>
              <CardDescription>Log in to continue your coaching.</CardDescription>
            </CardHeader>
            <CardContent>
              <LoginForm
                onLoggedIn={onLoggedIn}
                onTwoFactorRequired={() => void navigate({ search: (previous) => ({ ...previous, mode: 'two-factor' }) })}
                onForgotPassword={(email) => setForgot({ open: true, email })}
                onForgotPasswordIntent={() => void loadForgotPasswordDialog().catch(() => undefined)}
                forgotPasswordRef={forgotButtonRef}
              />
            </CardContent>
          </Card>
        </TabsContent>
        <TabsContent value="signup" forceMount hidden={tab !== 'signup'}>
          <Card>
            <CardHeader>
              <CardTitle as="h2">Create your account</CardTitle>
              <CardDescription>It takes a minute. You'll choose your plan next.</CardDescription>
            </CardHeader>
            <CardContent>
              <SignupForm partnerProgram={partnerProgram} onSignedUp={onSignedUp} />
            </CardContent>
          </Card>
        </TabsContent>
      </Tabs>
      {forgot ? (
        <Suspense fallback={null}>
          <ForgotPasswordDialog
            open={forgot.open}
            onOpenChange={(open) => setForgot((current) => current && { ...current, open })}
            defaultEmail={forgot.email}
            returnFocusRef={forgotButtonRef}
          />
        </Suspense>
      ) : null}
    </AuthLayout>
  )
}
