/**
 * /memory, "What your coach remembers" (docs/decisions/083): every current fact grouped by
 * subject, each with where it came from ("from your call on Tue, Mar 9"), to correct (the
 * correction supersedes it) or delete for good; each episode with its channel and date; "Delete
 * everything" behind a confirmation dialog; and the switch that pauses the memory.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { PencilIcon, RefreshCwIcon, Trash2Icon } from 'lucide-react'
import { useId, useState, type FormEvent } from 'react'
import { MEMORY_STATEMENT_MAX, MEMORY_SUBJECTS, MEMORY_SUBJECT_TITLES, type MemoryChannel, type MemoryFactView, type MemoryView } from '#common/memory'
import { SectionCard } from '#web/components/section-card'
import { Button } from '#web/components/ui/button'
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle, DialogTrigger } from '#web/components/ui/dialog'
import { Field } from '#web/components/ui/field'
import { Input } from '#web/components/ui/input'
import { Label } from '#web/components/ui/label'
import { Spinner } from '#web/components/ui/spinner'
import { Switch } from '#web/components/ui/switch'
import { useDocumentTitle } from '#web/components/use-document-title'
import { isApiError } from '#web/lib/api-client'
import { toast } from '#web/lib/toast'
import { PageShell } from '#web/features/navigation/page-shell'
import { correctFact, forgetEverything, forgetFact, memoryKeys, memoryQueryOptions, setMemoryPaused } from './api'

const TITLE = 'What your coach remembers'

const CHANNEL_WORDS: Record<MemoryChannel, string> = {
  call: 'Phone call',
  voice: 'Voice session in the app',
  chat: 'Chat',
  text: 'Text message',
  coach_session: 'Session with your coach',
}

/** "Tue, Mar 9" in the browser's zone. */
const dayOf = (iso: string) => new Date(iso).toLocaleDateString('en-US', { weekday: 'short', month: 'short', day: 'numeric' })

const messageOf = (error: unknown) => (error instanceof Error ? error.message : 'Please try again.')

export function MemoryPage() {
  useDocumentTitle(TITLE)
  const memory = useQuery(memoryQueryOptions())

  let body: React.ReactNode
  if (memory.isPending) body = <Spinner size="lg" label="Loading what your coach remembers..." showLabel />
  else if (memory.isError)
    body = (
      <div role="alert" className="flex flex-col items-start gap-3 rounded-lg border border-dashed border-destructive/40 bg-destructive/5 p-4">
        <p className="font-medium text-destructive">{messageOf(memory.error)}</p>
        <Button variant="outline" onClick={() => void memory.refetch()} disabled={memory.isFetching}>
          <RefreshCwIcon aria-hidden="true" />
          Try Again
        </Button>
      </div>
    )
  else body = <MemoryContent memory={memory.data} />

  return (
    <PageShell mainClassName="px-4 py-8 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-3xl space-y-6">
        <header className="space-y-1">
          <h1 className="text-3xl font-bold tracking-tight">{TITLE}</h1>
          <p className="text-muted-foreground">
            What your coach learned about you in your calls, chats and texts, and uses in every one of them. Correct anything that is wrong, or delete it: deleted is gone for good.
          </p>
        </header>
        {body}
      </div>
    </PageShell>
  )
}

function MemoryContent({ memory }: { memory: MemoryView }) {
  const groups = MEMORY_SUBJECTS.map((subject) => ({ subject, facts: memory.facts.filter((fact) => fact.subject === subject) })).filter((group) => group.facts.length > 0)
  const empty = memory.facts.length === 0 && memory.episodes.length === 0
  return (
    <>
      <PauseSwitch paused={memory.paused} />
      {empty ? (
        <SectionCard title="Nothing yet">
          <p className="text-muted-foreground">
            {memory.paused
              ? 'Your coach remembers nothing of your conversations, and keeps nothing new while memory is paused.'
              : 'Your coach has not remembered anything yet. What you tell it about yourself in a call, a chat or a text shows here.'}
          </p>
        </SectionCard>
      ) : null}
      {groups.length > 0 ? (
        <SectionCard title="Facts" description="What your coach knows about you now, by subject.">
          <div className="space-y-6">
            {groups.map((group) => (
              <FactGroup key={group.subject} title={MEMORY_SUBJECT_TITLES[group.subject]} facts={group.facts} />
            ))}
          </div>
        </SectionCard>
      ) : !empty ? (
        <SectionCard title="Facts">
          <p className="text-muted-foreground">No facts about you are remembered.</p>
        </SectionCard>
      ) : null}
      {memory.episodes.length > 0 ? (
        <SectionCard title="Conversations" description="A short summary of each conversation your coach remembers.">
          <ul className="space-y-4">
            {memory.episodes.map((episode) => (
              <li key={episode.id} className="space-y-1">
                <p className="text-sm font-medium">
                  {CHANNEL_WORDS[episode.channel]}, <time dateTime={episode.occurredAt}>{dayOf(episode.occurredAt)}</time>
                </p>
                <p>{episode.summary}</p>
              </li>
            ))}
          </ul>
        </SectionCard>
      ) : null}
      {!empty ? <DeleteEverything /> : null}
    </>
  )
}

function PauseSwitch({ paused }: { paused: boolean }) {
  const id = useId()
  const hintId = useId()
  const queryClient = useQueryClient()
  const pause = useMutation({
    mutationFn: setMemoryPaused,
    onSuccess: (_, nowPaused) => {
      queryClient.setQueryData<MemoryView>(memoryKeys.view, (view) => (view ? { ...view, paused: nowPaused } : view))
      void toast({ title: nowPaused ? 'Memory paused' : 'Memory back on', description: nowPaused ? 'Your coach works from your goals only.' : 'Your coach uses what it remembers again.' })
    },
    onError: (error) => void toast({ title: 'Not changed', description: messageOf(error), variant: 'destructive' }),
  })
  const checked = pause.isPending ? pause.variables : paused
  return (
    <div className="flex items-start gap-3 rounded-lg border bg-card p-4">
      <Switch id={id} checked={checked} disabled={pause.isPending} onCheckedChange={(value) => pause.mutate(value)} aria-describedby={hintId} className="mt-0.5" />
      <div className="space-y-1">
        <Label htmlFor={id}>Pause memory: your coach works from your goals only</Label>
        <p id={hintId} className="text-sm text-muted-foreground">
          While paused, your coach does not use what it remembers, and keeps nothing new from your conversations.
        </p>
      </div>
    </div>
  )
}

function FactGroup({ title, facts }: { title: string; facts: MemoryFactView[] }) {
  const id = useId()
  return (
    <section aria-labelledby={id} className="space-y-2">
      <h3 id={id} className="text-base font-semibold">
        {title}
      </h3>
      <ul className="divide-y rounded-lg border">
        {facts.map((fact) => (
          <Fact key={fact.id} fact={fact} />
        ))}
      </ul>
    </section>
  )
}

function Fact({ fact }: { fact: MemoryFactView }) {
  const [mode, setMode] = useState<'view' | 'edit' | 'delete'>('view')
  const queryClient = useQueryClient()
  const remove = useMutation({
    mutationFn: () => forgetFact(fact.id),
    onSuccess: () => {
      queryClient.setQueryData<MemoryView>(memoryKeys.view, (view) => (view ? { ...view, facts: view.facts.filter((item) => item.id !== fact.id) } : view))
      void queryClient.invalidateQueries({ queryKey: memoryKeys.view })
      void toast({ title: 'Deleted for good', description: 'Your coach will not remember it again.' })
    },
    onError: (error) => {
      void toast({ title: 'Not deleted', description: messageOf(error), variant: 'destructive' })
      void queryClient.invalidateQueries({ queryKey: memoryKeys.view })
    },
  })

  return (
    <li className="space-y-2 p-3">
      {mode === 'edit' ? (
        <CorrectForm fact={fact} onDone={() => setMode('view')} />
      ) : (
        <>
          <p>{fact.statement}</p>
          <p className="text-sm text-muted-foreground">{fact.origin}</p>
          {mode === 'delete' ? (
            <div role="group" aria-label="Delete this fact?" className="flex flex-wrap items-center gap-2">
              <p className="text-sm font-medium">Delete this for good?</p>
              <Button size="sm" variant="destructive" onClick={() => remove.mutate()} disabled={remove.isPending}>
                {remove.isPending ? 'Deleting...' : 'Yes, delete it'}
              </Button>
              <Button size="sm" variant="outline" onClick={() => setMode('view')} disabled={remove.isPending}>
                Keep it
              </Button>
            </div>
          ) : (
            <div className="flex flex-wrap gap-2">
              <Button size="sm" variant="outline" onClick={() => setMode('edit')} aria-label={`Correct: ${fact.statement}`}>
                <PencilIcon aria-hidden="true" />
                Correct
              </Button>
              <Button size="sm" variant="ghost" onClick={() => setMode('delete')} aria-label={`Delete: ${fact.statement}`}>
                <Trash2Icon aria-hidden="true" />
                Delete
              </Button>
            </div>
          )}
        </>
      )}
    </li>
  )
}

function CorrectForm({ fact, onDone }: { fact: MemoryFactView; onDone: () => void }) {
  const id = useId()
  const [statement, setStatement] = useState(fact.statement)
  const [error, setError] = useState<string | undefined>()
  const queryClient = useQueryClient()
  const save = useMutation({
    mutationFn: (words: string) => correctFact(fact.id, { statement: words }),
    onSuccess: (view) => {
      queryClient.setQueryData(memoryKeys.view, view)
      void toast({ title: 'Corrected', description: 'Your coach uses your words from now on.' })
      onDone()
    },
    onError: (failure) => {
      if (isApiError(failure) && failure.field === 'statement') {
        setError(failure.message)
        document.getElementById(id)?.focus()
        return
      }
      void toast({ title: 'Not corrected', description: messageOf(failure), variant: 'destructive' })
      void queryClient.invalidateQueries({ queryKey: memoryKeys.view })
    },
  })

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const words = statement.trim()
    if (!words) {
      setError('Write what your coach should remember.')
      document.getElementById(id)?.focus()
      return
    }
    if (words === fact.statement) {
      onDone()
      return
    }
    setError(undefined)
    save.mutate(words)
  }

  return (
    <form noValidate onSubmit={submit} onKeyDown={(event) => event.key === 'Escape' && onDone()} className="space-y-3" aria-label="Correct this fact">
      <Field id={id} label="What your coach should remember" error={error} hint={fact.origin}>
        {(control) => <Input {...control} value={statement} maxLength={MEMORY_STATEMENT_MAX} autoFocus onChange={(event) => setStatement(event.target.value)} />}
      </Field>
      <div className="flex flex-wrap gap-2">
        <Button type="submit" size="sm" disabled={save.isPending}>
          {save.isPending ? 'Saving...' : 'Save correction'}
        </Button>
        <Button type="button" size="sm" variant="outline" onClick={onDone} disabled={save.isPending}>
          Cancel
        </Button>
      </div>
    </form>
  )
}

function DeleteEverything() {
  const [open, setOpen] = useState(false)
  const describedBy = useId()
  const queryClient = useQueryClient()
  const remove = useMutation({
    mutationFn: forgetEverything,
    onSuccess: () => {
      setOpen(false)
      void queryClient.invalidateQueries({ queryKey: memoryKeys.view })
      void toast({ title: 'Your coach remembers nothing now', description: 'Everything was deleted for good.' })
    },
    onError: (error) => void toast({ title: 'Not deleted', description: messageOf(error), variant: 'destructive' }),
  })
  return (
    <SectionCard title="Delete everything">
      <p id={describedBy} className="mb-3 text-sm text-muted-foreground">
        Deletes every fact and every conversation summary your coach remembers, for good. Your goals, calls and chats stay.
      </p>
      <Dialog open={open} onOpenChange={setOpen}>
        <DialogTrigger asChild>
          <Button variant="destructive" aria-describedby={describedBy}>
            <Trash2Icon aria-hidden="true" />
            Delete everything
          </Button>
        </DialogTrigger>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Delete everything your coach remembers?</DialogTitle>
            <DialogDescription>Every fact and conversation summary is deleted for good, and your coach will not learn them again from the same conversations. This cannot be undone.</DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <DialogClose asChild>
              <Button variant="outline" disabled={remove.isPending}>
                Cancel
              </Button>
            </DialogClose>
            <Button variant="destructive" onClick={() => remove.mutate()} disabled={remove.isPending}>
              {remove.isPending ? 'Deleting...' : 'Yes, delete everything'}
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </SectionCard>
  )
}
