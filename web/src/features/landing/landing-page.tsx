import { Link } from '@tanstack/react-router'
import {
  ArrowRightIcon,
  ChartColumnIcon,
  GraduationCapIcon,
  MessageSquareTextIcon,
  MicIcon,
  PhoneCallIcon,
  TargetIcon,
} from 'lucide-react'
import { LIFE_AREAS } from '#common/domain'
import { LIFE_AREA_TITLES } from '#common/life-areas'
import { AppShell, useKnownUser } from '#web/components/app-shell'
import { BrandName } from '#web/components/brand'
import { Badge } from '#web/components/ui/badge'
import { Button } from '#web/components/ui/button'
import { useDocumentTitle } from '#web/components/use-document-title'
import { PlansSection } from './components/plans-section'

const features = [
  {
    icon: PhoneCallIcon,
    title: 'A coaching call every day',
    body: 'Your AI coach phones you at the local time you choose for a short, focused check-in: what you got done, what comes next and what is in the way.',
  },
  {
    icon: TargetIcon,
    title: 'Goals for your whole life',
    body: 'Rate where you stand in eight life areas, pick what to focus on, and add your work and career goals for the next 90 days, 12 months and 5 years.',
  },
  {
    icon: ChartColumnIcon,
    title: 'A dashboard that shows progress',
    body: 'See your overall score, each life area at a glance, the three areas that need you most this week and a record of every coaching call.',
  },
  {
    icon: MicIcon,
    title: 'An assistant you can type or talk to',
    body: 'Between calls, ask your coach anything by chat or by voice. Your conversations are saved so you can pick up where you left off.',
  },
  {
    icon: GraduationCapIcon,
    title: 'Training courses',
    body: 'Short video lessons and quizzes on product training, marketing and business, with your progress tracked lesson by lesson.',
  },
  {
    icon: MessageSquareTextIcon,
    title: 'Text-message check-ins',
    body: 'Opt in to texts for reminders and quick nudges between calls. Reply STOP at any time to opt out.',
  },
] as const

const steps = [
  { title: 'Create your account', body: 'Sign up in a minute and choose the plan that fits.' },
  { title: 'Set your goals', body: 'Rate each life area, name your career goals and pick your daily call time.' },
  { title: 'Take your daily call', body: 'Your coach calls on time, every day, and keeps you honest.' },
  { title: 'Watch your momentum build', body: 'Track scores and calls on your dashboard as the weeks add up.' },
] as const

export function LandingPage() {
  useDocumentTitle()
  // Known only after the app has loaded the session (arriving from a signed-in screen): the
  // prerendered page is the visitors' (docs/decisions/052).
  const user = useKnownUser()
  return (
    <AppShell>
      {/* Hero */}
      <section aria-labelledby="hero-heading" className="relative overflow-hidden">
        <div
          aria-hidden="true"
          className="pointer-events-none absolute inset-0 bg-[radial-gradient(ellipse_at_top_right,_#e0e7ff_0%,_transparent_55%),radial-gradient(ellipse_at_bottom_left,_#ffedd5_0%,_transparent_50%)]"
        />
        <div className="relative mx-auto grid max-w-6xl gap-12 px-4 py-20 sm:px-6 sm:py-28 lg:grid-cols-[1.2fr_1fr] lg:items-center">
          <div>
            <Badge variant="secondary" className="px-3 py-1 text-sm">
              AI accountability coaching
            </Badge>
            <h1 id="hero-heading" className="mt-6 text-5xl font-extrabold tracking-tight sm:text-6xl lg:text-7xl">
              <BrandName className="font-extrabold" />
            </h1>
            <p className="mt-6 max-w-xl text-xl leading-relaxed text-foreground/85">
              The AI coach that calls you every day, keeps track of the goals that matter across your whole life,
              and helps you follow through when motivation fades.
            </p>
            <div className="mt-10 flex flex-wrap items-center gap-4">
              <Button asChild size="lg">
                {user ? (
                  <Link to="/dashboard">
                    Go to Dashboard
                    <ArrowRightIcon aria-hidden="true" />
                  </Link>
                ) : (
                  <Link to="/auth">
                    Get Started
                    <ArrowRightIcon aria-hidden="true" />
                  </Link>
                )}
              </Button>
              <Button asChild size="lg" variant="outline">
                <a href="#plans">See plans</a>
              </Button>
            </div>
            {user ? null : (
              <p className="mt-6 text-sm text-muted-foreground">
                Already a member?{' '}
                <Link
                  to="/auth"
                  className="rounded-sm font-semibold text-primary underline underline-offset-4 hover:text-primary-hover"
                >
                  Log In
                </Link>
              </p>
            )}
          </div>

          <div aria-hidden="true" className="hidden lg:block">
            <div className="rounded-2xl border bg-card p-6 shadow-xl">
              <div className="flex items-center gap-3">
                <span className="flex size-11 items-center justify-center rounded-full bg-secondary">
                  <PhoneCallIcon className="size-5 text-brand-momentum" />
                </span>
                <div>
                  <p className="font-semibold">Daily coaching call</p>
                  <p className="text-sm text-muted-foreground">Today at 7:30 AM · 5 minutes</p>
                </div>
              </div>
              <div className="mt-6 space-y-4">
                {[
                  [LIFE_AREA_TITLES.fitness, 8],
                  [LIFE_AREA_TITLES.finance, 6],
                  [LIFE_AREA_TITLES.personal_development, 7],
                ].map(([area, score]) => (
                  <div key={area}>
                    <div className="flex justify-between text-sm">
                      <span>{area}</span>
                      <span className="text-muted-foreground">{score}/10</span>
                    </div>
                    <div className="mt-1.5 h-2 rounded-full bg-secondary">
                      <div className="h-2 rounded-full bg-primary" style={{ width: `${Number(score) * 10}%` }} />
                    </div>
                  </div>
                ))}
              </div>
              <div className="mt-6 rounded-xl bg-accent p-4 text-sm text-accent-foreground">
                “Yesterday you planned three workouts this week. Two done. What will get the third one in?”
              </div>
            </div>
          </div>
        </div>
      </section>

      {/* Features */}
      <section id="features" aria-labelledby="features-heading" className="border-t bg-card py-20 sm:py-24">
        <div className="mx-auto max-w-6xl px-4 sm:px-6">
          <div className="mx-auto max-w-2xl text-center">
            <h2 id="features-heading" className="text-3xl font-bold tracking-tight sm:text-4xl">
              Everything that keeps you moving
            </h2>
            <p className="mt-4 text-lg text-muted-foreground">
              Goals are easy to set and easy to drop. Momentum comes from someone checking in, every single day.
            </p>
          </div>
          <ul className="mt-14 grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
            {features.map(({ icon: Icon, title, body }) => (
              <li key={title} className="rounded-xl border bg-background p-6">
                <span className="flex size-11 items-center justify-center rounded-lg bg-secondary">
                  <Icon className="size-5 text-brand-momentum" aria-hidden="true" />
                </span>
                <h3 className="mt-4 text-lg font-semibold">{title}</h3>
                <p className="mt-2 text-muted-foreground">{body}</p>
              </li>
            ))}
          </ul>
        </div>
      </section>

      {/* Life areas and how it works */}
      <section aria-labelledby="how-heading" className="py-20 sm:py-24">
        <div className="mx-auto grid max-w-6xl gap-14 px-4 sm:px-6 lg:grid-cols-2">
          <div>
            <h2 id="how-heading" className="text-3xl font-bold tracking-tight sm:text-4xl">
              How it works
            </h2>
            <ol className="mt-8 space-y-6">
              {steps.map((step, index) => (
                <li key={step.title} className="flex gap-4">
                  <span
                    aria-hidden="true"
                    className="flex size-9 shrink-0 items-center justify-center rounded-full bg-primary font-bold text-primary-foreground"
                  >
                    {index + 1}
                  </span>
                  <div>
                    <h3 className="font-semibold">{step.title}</h3>
                    <p className="mt-1 text-muted-foreground">{step.body}</p>
                  </div>
                </li>
              ))}
            </ol>
          </div>
          <div className="self-start rounded-2xl border bg-card p-8">
            <h3 className="text-xl font-semibold">Eight life areas, plus work &amp; career</h3>
            <p className="mt-2 text-muted-foreground">
              Your coach looks at the whole picture, so progress in one part of life doesn't cost you another.
            </p>
            <ul className="mt-6 flex flex-wrap gap-2" aria-label="Life areas">
              {LIFE_AREAS.map((area) => (
                <li key={area}>
                  <Badge variant="secondary" className="px-3 py-1 text-sm">
                    {LIFE_AREA_TITLES[area]}
                  </Badge>
                </li>
              ))}
              <li>
                <Badge variant="accent" className="px-3 py-1 text-sm">
                  Work &amp; Career
                </Badge>
              </li>
            </ul>
          </div>
        </div>
      </section>

      <PlansSection />

      {/* Closing call to action */}
      <section aria-labelledby="cta-heading" className="bg-brand-momentum py-16 sm:py-20">
        <div className="mx-auto flex max-w-4xl flex-col items-center px-4 text-center sm:px-6">
          <h2 id="cta-heading" className="text-3xl font-bold tracking-tight text-white sm:text-4xl">
            Ready to build momentum?
          </h2>
          <p className="mt-4 max-w-xl text-lg text-indigo-100">
            Create your account, set your goals and get your first coaching call.
          </p>
          <Button asChild size="lg" variant="secondary" className="mt-8 focus-visible:outline-white">
            <Link to="/auth">
              Start coaching today
              <ArrowRightIcon aria-hidden="true" />
            </Link>
          </Button>
        </div>
      </section>
    </AppShell>
  )
}
