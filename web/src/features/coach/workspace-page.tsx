/**
 * /coach (docs/decisions/078): a coach's workspace, and the admins' view of coaches. A coach sees
 * their members (score, last completed call, quiet ones flagged) and opens one: goals and scores,
 * the last calls' summaries, commitments, weekly reports, the next call, and private notes the
 * member never sees; each opening is in the member's audit log. The coach edits the profile their
 * members see. An admin sets each coach's capacity and gives an Elite member a coach.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useSearch } from '@tanstack/react-router'
import { UsersIcon } from 'lucide-react'
import { useEffect, useId, useRef, useState } from 'react'
import {
  COACH_BIO_MAX,
  COACH_PHOTO_MAX_BYTES,
  COACH_PHOTO_TYPES,
  WEEKDAY_NAMES,
  type CoachMemberDetail,
  type CoachMessage,
  type CoachProfileWithPhoto,
  type CoachThreadEvent,
} from '#common/coach'
import { LIFE_AREA_TITLES } from '#common/life-areas'
import { SUPPORT_STATUS_NAMES, SUPPORT_TOPIC_NAMES } from '#common/support'
import { NotFoundPage } from '#web/components/not-found'
import { SectionCard } from '#web/components/section-card'
import { Badge } from '#web/components/ui/badge'
import { Button } from '#web/components/ui/button'
import { Field } from '#web/components/ui/field'
import { Input } from '#web/components/ui/input'
import { Spinner } from '#web/components/ui/spinner'
import { Textarea } from '#web/components/ui/textarea'
import { useDocumentTitle } from '#web/components/use-document-title'
import { isApiError } from '#web/lib/api-client'
import { formatDateTime } from '#web/lib/date-time'
import { toast } from '#web/lib/toast'
import { PageShell } from '#web/features/navigation/page-shell'
import { staffMeQueryOptions } from '#web/features/staff/api'
import { useStaffRefusal } from '#web/features/staff/staff-access'
import { NativeSelect, errorFor } from '#web/features/support/support-form'
import {
  addCoachNote,
  assignCoach,
  coachesQueryOptions,
  coachKeys,
  coachMemberQueryOptions,
  coachMembersQueryOptions,
  coachProfileQueryOptions,
  deleteCoachNote,
  memberThreadQueryOptions,
  removeCoachPhoto,
  sendMemberMessage,
  setCoachCapacity,
  threadKeys,
  updateCoachProfile,
  uploadCoachPhoto,
} from './api'
import { AdjustPlan } from '#web/features/coach-sessions/adjust-plan'
import { CoachSessionsPanel } from '#web/features/coach-sessions/coach-sessions-panel'
import { CoachPhoto } from './coach-photo'
import { MessageBox, ThreadMessages } from './thread'
import { useThreadEvents } from './use-thread-events'

const failedToast = (title: string) => (error: unknown) =>
  void toast({ title, description: error instanceof Error ? error.message : 'Please try again.', variant: 'destructive' })

export function WorkspacePage() {
  useDocumentTitle('Coach workspace')
  const search = useSearch({ strict: false }) as Record<string, unknown>
  const selected = typeof search.member === 'string' ? search.member : null
  const me = useQuery(staffMeQueryOptions())
  const isCoach = me.data?.roles.includes('coach') ?? false
  const isAdmin = me.data?.roles.includes('admin') ?? false
  const queryClient = useQueryClient()
  // Every thread of the coach's members, live: new messages and the members' read receipts.
  useThreadEvents('/api/staff/coach/messages/stream', {
    enabled: isCoach,
    onListening: () => void queryClient.invalidateQueries({ queryKey: coachKeys.members }),
    onEvent: (event: CoachThreadEvent) => {
      if (event.type === 'coach-message') {
        queryClient.setQueryData<CoachMessage[]>(threadKeys.member(event.memberId), (current) =>
          current && !current.some((held) => held.id === event.message.id) ? [...current, event.message] : current,
        )
        if (event.message.from === 'member') void queryClient.invalidateQueries({ queryKey: coachKeys.members, exact: true })
      } else if (event.by === 'member') {
        queryClient.setQueryData<CoachMessage[]>(threadKeys.member(event.memberId), (current) =>
          current?.map((message) => (message.from === 'coach' && message.readAt === null ? { ...message, readAt: event.at } : message)),
        )
      }
    },
  })
  return (
    <PageShell mainClassName="px-4 py-8 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-6xl space-y-6">
        <header className="space-y-1">
          <h1 className="flex items-center gap-2 text-3xl font-bold tracking-tight">
            <UsersIcon className="size-7 text-brand-coach" aria-hidden="true" />
            Coach workspace
          </h1>
          <p className="text-muted-foreground">Your Elite members, what they're working on, and your private notes. Opening a member is listed on their account page.</p>
        </header>
        {isCoach ? (
          <>
            <div className="grid gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
              <MemberList selected={selected} />
              {selected ? <MemberFile key={selected} memberId={selected} /> : <p className="text-muted-foreground">Choose a member to open their file.</p>}
            </div>
            <CoachSessionsPanel />
            <ProfileEditor />
          </>
        ) : null}
        {isAdmin ? <CoachesAdmin /> : null}
      </div>
    </PageShell>
  )
}

function MemberList({ selected }: { selected: string | null }) {
  const members = useQuery(coachMembersQueryOptions())
  if (useStaffRefusal(members.error) === 'not-found') return <NotFoundPage />
  return (
    <SectionCard title="Your members">
      {members.isPending ? (
        <Spinner label="Loading your members..." showLabel />
      ) : members.isError ? (
        <p role="alert" className="text-destructive">
          Unable to load your members.
        </p>
      ) : members.data.length === 0 ? (
        <p className="text-muted-foreground">No members yet. Elite members are assigned to the coach with the most free places.</p>
      ) : (
        <ul className="divide-y" aria-label="Your members">
          {members.data.map((member) => (
            <li key={member.memberId} className={member.memberId === selected ? 'bg-muted' : undefined}>
              <Link to="/coach" search={{ member: member.memberId }} aria-current={member.memberId === selected ? 'true' : undefined} className="block space-y-1 p-3">
                <span className="flex flex-wrap items-center gap-2">
                  <span className="font-medium">{member.fullName}</span>
                  {member.urgent ? <Badge variant="destructive">Urgent: crisis words</Badge> : null}
                  {member.unread > 0 ? <Badge>{member.unread === 1 ? '1 unread message' : `${member.unread} unread messages`}</Badge> : null}
                  {member.quiet ? <Badge variant="destructive">Quiet</Badge> : null}
                  {member.awaitingOnboarding ? <Badge>New: onboarding</Badge> : null}
                </span>
                <span className="block text-sm text-muted-foreground">
                  Score {member.overallScore ?? '—'} · {member.lastCompletedCallAt ? `last call ${formatDateTime(member.lastCompletedCallAt)}` : 'no completed call yet'}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </SectionCard>
  )
}

function MemberFile({ memberId }: { memberId: string }) {
  const file = useQuery(coachMemberQueryOptions(memberId))
  const refusal = useStaffRefusal(file.error)
  if (refusal === 'not-found' || (isApiError(file.error) && file.error.status === 404)) return <p role="alert">This member is not one of yours.</p>
  if (file.isPending) return <Spinner label="Opening the member's file..." showLabel />
  if (file.isError) return <p role="alert" className="text-destructive">Unable to open this member's file.</p>
  return <MemberFileView file={file.data} />
}

function MemberFileView({ file }: { file: CoachMemberDetail }) {
  const { member } = file
  const queryClient = useQueryClient()
  const areas = file.goals.filter((goal) => goal.lifeArea in LIFE_AREA_TITLES)
  const specific = file.goals.find((goal) => goal.lifeArea === 'specific_goals')?.specificGoals
  return (
    <div className="space-y-4">
      <h2 className="text-2xl font-semibold tracking-tight">{member.fullName}</h2>
      <p className="text-sm text-muted-foreground">
        Your member since {formatDateTime(member.assignedAt)}
        {member.timeZone ? ` · ${member.timeZone}` : ''} · overall score {member.overallScore ?? '—'}
      </p>
      <SectionCard title="Goals and scores">
        {areas.length === 0 ? (
          <p className="text-muted-foreground">No goal intake yet.</p>
        ) : (
          <ul className="grid gap-1 sm:grid-cols-2" aria-label="Life areas">
            {areas.map((goal) => (
              <li key={goal.lifeArea}>
                {LIFE_AREA_TITLES[goal.lifeArea as keyof typeof LIFE_AREA_TITLES]}: <strong>{goal.satisfactionScore ?? '—'}</strong>/10
              </li>
            ))}
          </ul>
        )}
        {specific?.goal_90_days ? <p className="mt-3">90-day goal: {specific.goal_90_days}</p> : null}
        {specific?.obstacles ? <p>Obstacles: {specific.obstacles}</p> : null}
      </SectionCard>
      <AdjustPlan
        memberId={member.memberId}
        memberName={member.fullName}
        goal90Days={specific?.goal_90_days ?? ''}
        obstacles={specific?.obstacles ?? ''}
        areaNotes={Object.fromEntries(areas.map((goal) => [goal.lifeArea, goal.customNotes ?? '']))}
        onSaved={(plan) =>
          // The file is read once per opening (each read is audited): the change is written into it here.
          queryClient.setQueryData<CoachMemberDetail>(coachKeys.member(member.memberId), (current) =>
            current
              ? {
                  ...current,
                  goals: current.goals.some((goal) => goal.lifeArea === 'specific_goals')
                    ? current.goals.map((goal) => (goal.lifeArea === 'specific_goals' ? { ...goal, specificGoals: { ...goal.specificGoals, goal_90_days: plan.goal90Days, obstacles: plan.obstacles || null } } : goal))
                    : [
                        ...current.goals,
                        { lifeArea: 'specific_goals', selectedOptions: [], satisfactionScore: null, customNotes: null, specificGoals: { goal_90_days: plan.goal90Days, obstacles: plan.obstacles || null }, updatedAt: new Date().toISOString() },
                      ],
                }
              : current,
          )
        }
      />
      <SectionCard title="Recent calls">
        {file.calls.length === 0 ? (
          <p className="text-muted-foreground">No calls yet.</p>
        ) : (
          <ul className="space-y-2" aria-label="Recent calls">
            {file.calls.map((call) => (
              <li key={call.id}>
                <p className="text-sm font-medium">
                  {formatDateTime(call.callDate)} · {call.completionStatus.replace(/_/g, ' ')}
                  {call.mood !== null ? ` · mood ${call.mood}/10` : ''}
                  {call.energy !== null ? ` · energy ${call.energy}/10` : ''}
                </p>
                {call.summary ? <p className="text-sm">{call.summary}</p> : null}
              </li>
            ))}
          </ul>
        )}
        <p className="mt-3 text-sm text-muted-foreground">
          Next call: {file.nextCall.next ? formatDateTime(file.nextCall.next.at) : 'none scheduled'}
        </p>
      </SectionCard>
      <SectionCard title="Commitments">
        {file.commitments.open.length === 0 ? (
          <p className="text-muted-foreground">No open commitments.</p>
        ) : (
          <ul className="list-disc space-y-1 pl-5" aria-label="Open commitments">
            {file.commitments.open.map((commitment) => (
              <li key={commitment.id}>{commitment.text}</li>
            ))}
          </ul>
        )}
        <p className="mt-3 text-sm text-muted-foreground">
          Kept in the last {file.commitments.keptRate.days} days: {file.commitments.keptRate.percent === null ? '—' : `${file.commitments.keptRate.percent}%`}
        </p>
      </SectionCard>
      <SectionCard title="Weekly reports">
        {file.reports.length === 0 ? (
          <p className="text-muted-foreground">No weekly report yet.</p>
        ) : (
          <ul className="space-y-1" aria-label="Weekly reports">
            {file.reports.map((report) => (
              <li key={report.weekEnding}>Week ending {report.weekEnding}</li>
            ))}
          </ul>
        )}
      </SectionCard>
      <SectionCard title="Support requests" description="What they asked our support team (the conversation stays with support).">
        {file.supportRequests.length === 0 ? (
          <p className="text-muted-foreground">None.</p>
        ) : (
          <ul className="space-y-1" aria-label="Support requests">
            {file.supportRequests.map((request) => (
              <li key={request.id}>
                {request.reference} · {SUPPORT_TOPIC_NAMES[request.topic]} · {SUPPORT_STATUS_NAMES[request.status]} · {formatDateTime(request.lastMessageAt)}
              </li>
            ))}
          </ul>
        )}
      </SectionCard>
      <MemberThread memberId={member.memberId} memberName={member.fullName} />
      <NotesSection memberId={member.memberId} notes={file.notes} />
    </div>
  )
}

function MemberThread({ memberId, memberName }: { memberId: string; memberName: string }) {
  const queryClient = useQueryClient()
  const thread = useQuery(memberThreadQueryOptions(memberId))
  const send = useMutation({
    mutationFn: (body: string) => sendMemberMessage(memberId, body),
    onSuccess: (message) =>
      queryClient.setQueryData<CoachMessage[]>(threadKeys.member(memberId), (current) => (current && !current.some((held) => held.id === message.id) ? [...current, message] : current)),
    onError: (error) => (isApiError(error) && error.field === 'body' ? undefined : failedToast('Message not sent')(error)),
  })
  useEffect(() => {
    // Opening the thread read the member's messages: the list's unread count changes.
    if (thread.isSuccess) void queryClient.invalidateQueries({ queryKey: coachKeys.members, exact: true })
  }, [thread.isSuccess, queryClient])
  return (
    <SectionCard title="Messages" description="Your thread with this member: they see your replies at once, and by email if they are away.">
      {thread.data ? (
        <div className="space-y-4">
          <ThreadMessages messages={thread.data} me="coach" names={{ member: memberName, coach: 'You' }} />
          <MessageBox label={`Reply to ${memberName}`} pending={send.isPending} error={isApiError(send.error) && send.error.field === 'body' ? send.error.message : undefined} onSend={(text) => send.mutateAsync(text)} />
        </div>
      ) : thread.isError ? (
        <p role="alert" className="text-destructive">
          Unable to load the messages.
        </p>
      ) : (
        <Spinner label="Loading the messages..." showLabel />
      )}
    </SectionCard>
  )
}

function NotesSection({ memberId, notes }: { memberId: string; notes: CoachMemberDetail['notes'] }) {
  const queryClient = useQueryClient()
  const [body, setBody] = useState('')
  const id = useId()
  const refresh = (next: CoachMemberDetail['notes']) =>
    queryClient.setQueryData<CoachMemberDetail>(coachKeys.member(memberId), (current) => (current ? { ...current, notes: next } : current))
  const add = useMutation({
    mutationFn: () => addCoachNote(memberId, body),
    onSuccess: (note) => {
      refresh([note, ...notes])
      setBody('')
      void toast({ title: 'Note saved' })
    },
    onError: (error) => (isApiError(error) && error.field === 'body' ? undefined : failedToast('Note not saved')(error)),
  })
  const remove = useMutation({
    mutationFn: (noteId: string) => deleteCoachNote(memberId, noteId),
    onSuccess: (_result, noteId) => refresh(notes.filter((note) => note.id !== noteId)),
    onError: failedToast('Note not deleted'),
  })
  return (
    <SectionCard title="Private notes" description="Only you see these; the member never does, and they are not in the member's export.">
      {notes.length > 0 ? (
        <ul className="mb-4 space-y-2" aria-label="Your notes">
          {notes.map((note) => (
            <li key={note.id} className="flex items-start justify-between gap-3 rounded-lg border border-dashed p-3">
              <div>
                <p className="whitespace-pre-wrap">{note.body}</p>
                <p className="text-xs text-muted-foreground">{formatDateTime(note.updatedAt)}</p>
              </div>
              <Button variant="outline" size="sm" onClick={() => remove.mutate(note.id)} aria-label={`Delete the note of ${formatDateTime(note.updatedAt)}`}>
                Delete
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
      <form
        noValidate
        className="space-y-3"
        onSubmit={(event) => {
          event.preventDefault()
          add.mutate()
        }}
      >
        <Field id={id} label="New note" error={errorFor(add.error, 'body')}>
          {(control) => <Textarea {...control} rows={3} value={body} onChange={(event) => setBody(event.target.value)} />}
        </Field>
        <Button type="submit" variant="outline" disabled={add.isPending}>
          Save note
        </Button>
      </form>
    </SectionCard>
  )
}

function ProfileEditor() {
  const profile = useQuery(coachProfileQueryOptions())
  if (!profile.data) return null
  return <ProfileForm key={profile.data.coachId} profile={profile.data} />
}

function ProfileForm({ profile }: { profile: CoachProfileWithPhoto }) {
  const queryClient = useQueryClient()
  const [bio, setBio] = useState(profile.bio)
  const [timeZone, setTimeZone] = useState(profile.timeZone)
  const [days, setDays] = useState<number[]>(profile.workingDays)
  const [startTime, setStartTime] = useState(profile.startTime)
  const [endTime, setEndTime] = useState(profile.endTime)
  const [reply, setReply] = useState(String(profile.replyWithinHours))
  const ids = { bio: useId(), zone: useId(), start: useId(), end: useId(), reply: useId(), days: useId() }
  const save = useMutation({
    mutationFn: () => updateCoachProfile({ bio, timeZone, workingDays: days, startTime, endTime, replyWithinHours: Number(reply) }),
    onSuccess: (saved) => {
      queryClient.setQueryData(coachKeys.profile, saved)
      void toast({ title: 'Profile saved', description: saved.replyPromise })
    },
    onError: (error) => (isApiError(error) && error.field ? undefined : failedToast('Profile not saved')(error)),
  })
  return (
    <SectionCard title="Your profile" description={`What your members see: ${profile.replyPromise} ${profile.hoursText}`}>
      <PhotoEditor profile={profile} />
      <form
        noValidate
        className="grid gap-4 sm:grid-cols-2"
        onSubmit={(event) => {
          event.preventDefault()
          save.mutate()
        }}
      >
        <Field id={ids.bio} label="Bio" error={errorFor(save.error, 'bio')} className="sm:col-span-2">
          {(control) => <Textarea {...control} rows={3} maxLength={COACH_BIO_MAX} value={bio} onChange={(event) => setBio(event.target.value)} />}
        </Field>
        <Field id={ids.zone} label="Time zone" error={errorFor(save.error, 'timeZone')}>
          {(control) => <Input {...control} value={timeZone} onChange={(event) => setTimeZone(event.target.value)} />}
        </Field>
        <Field id={ids.reply} label="Reply within (business hours)" error={errorFor(save.error, 'replyWithinHours')}>
          {(control) => <Input {...control} type="number" min={1} max={72} value={reply} onChange={(event) => setReply(event.target.value)} />}
        </Field>
        <Field id={ids.start} label="Day starts" error={errorFor(save.error, 'startTime')}>
          {(control) => <Input {...control} type="time" value={startTime} onChange={(event) => setStartTime(event.target.value)} />}
        </Field>
        <Field id={ids.end} label="Day ends" error={errorFor(save.error, 'endTime')}>
          {(control) => <Input {...control} type="time" value={endTime} onChange={(event) => setEndTime(event.target.value)} />}
        </Field>
        <fieldset className="sm:col-span-2" aria-describedby={save.error && errorFor(save.error, 'workingDays') ? `${ids.days}-error` : undefined}>
          <legend className="mb-2 text-sm font-medium">Working days</legend>
          <div className="flex flex-wrap gap-3">
            {WEEKDAY_NAMES.map((name, index) => (
              <label key={name} className="flex items-center gap-1 text-sm">
                <input
                  type="checkbox"
                  checked={days.includes(index + 1)}
                  onChange={(event) => setDays((current) => (event.target.checked ? [...current, index + 1].sort() : current.filter((day) => day !== index + 1)))}
                />
                {name}
              </label>
            ))}
          </div>
          {errorFor(save.error, 'workingDays') ? (
            <p id={`${ids.days}-error`} className="mt-1 text-sm font-medium text-destructive">
              {errorFor(save.error, 'workingDays')}
            </p>
          ) : null}
        </fieldset>
        <div className="sm:col-span-2">
          <Button type="submit" disabled={save.isPending}>
            Save profile
          </Button>
        </div>
      </form>
    </SectionCard>
  )
}

/** Why a file cannot be the photo, before it is sent (the server checks what the bytes really are). */
function photoProblem(file: File): string | undefined {
  if (!(COACH_PHOTO_TYPES as readonly string[]).includes(file.type)) return 'Choose a JPEG, PNG or WebP image.'
  if (file.size > COACH_PHOTO_MAX_BYTES) return 'Choose an image of at most 5 MB.'
  return undefined
}

/** The photo the coach's members see (or their initials): chosen, it is sent at once as the file itself. */
function PhotoEditor({ profile }: { profile: CoachProfileWithPhoto }) {
  const queryClient = useQueryClient()
  const id = useId()
  const input = useRef<HTMLInputElement>(null)
  const [problem, setProblem] = useState<string | undefined>()
  const upload = useMutation({
    mutationFn: uploadCoachPhoto,
    onSuccess: (next) => {
      queryClient.setQueryData(coachKeys.profile, next)
      if (input.current) input.current.value = ''
      void toast({ title: 'Photo saved', description: 'Your members see it with your profile.' })
    },
    onError: (error) => (isApiError(error) && error.field === 'photo' ? undefined : failedToast('Photo not saved')(error)),
  })
  const remove = useMutation({
    mutationFn: removeCoachPhoto,
    onSuccess: (next) => {
      queryClient.setQueryData(coachKeys.profile, next)
      // The button is gone: the keyboard carries on from the file field.
      input.current?.focus()
      void toast({ title: 'Photo removed', description: 'Your members see your initials.' })
    },
    onError: failedToast('Photo not removed'),
  })
  return (
    <div className="mb-6 flex flex-wrap items-start gap-4">
      <CoachPhoto fullName={profile.fullName} photoUrl={profile.photoUrl} size="lg" />
      <div className="grid min-w-0 flex-1 gap-3">
        <Field id={id} label="Profile photo" hint="A JPEG, PNG or WebP image of at most 5 MB; it is cropped to a square." error={problem ?? errorFor(upload.error, 'photo')}>
          {(control) => (
            <Input
              {...control}
              ref={input}
              type="file"
              accept={COACH_PHOTO_TYPES.join(',')}
              onChange={(event) => {
                const file = event.target.files?.[0]
                const wrong = file ? photoProblem(file) : undefined
                upload.reset()
                setProblem(wrong)
                if (file && !wrong) upload.mutate(file)
              }}
            />
          )}
        </Field>
        {upload.isPending ? <Spinner label="Saving your photo..." showLabel /> : null}
        {profile.photoUrl ? (
          <div>
            <Button type="button" variant="outline" disabled={remove.isPending} onClick={() => remove.mutate()}>
              Remove photo
            </Button>
          </div>
        ) : null}
      </div>
    </div>
  )
}

function CoachesAdmin() {
  const queryClient = useQueryClient()
  const coaches = useQuery(coachesQueryOptions())
  const [email, setEmail] = useState('')
  const [coachId, setCoachId] = useState('')
  const ids = { email: useId(), coach: useId() }
  const capacity = useMutation({
    mutationFn: ({ id, max }: { id: string; max: number }) => setCoachCapacity(id, max),
    onSuccess: (next) => {
      queryClient.setQueryData(coachKeys.coaches, next)
      void toast({ title: 'Capacity saved' })
    },
    onError: failedToast('Capacity not saved'),
  })
  const assign = useMutation({
    mutationFn: () => assignCoach(email, coachId),
    onSuccess: async () => {
      setEmail('')
      await queryClient.invalidateQueries({ queryKey: coachKeys.coaches })
      void toast({ title: 'Coach assigned', description: 'The earlier assignment stays in the history.' })
    },
    onError: (error) => (isApiError(error) && (error.field === 'memberEmail' || error.field === 'coachId') ? undefined : failedToast('Not assigned')(error)),
  })
  return (
    <SectionCard title="Coaches" description="How many Elite members each coach takes; new members go to the coach with the most free places.">
      {coaches.data ? (
        <>
          {coaches.data.unassigned > 0 ? (
            <p role="status" className="mb-3 font-medium text-destructive">
              {coaches.data.unassigned === 1 ? '1 Elite member is' : `${coaches.data.unassigned} Elite members are`} waiting for a coach: every coach is full.
            </p>
          ) : null}
          <ul className="mb-6 divide-y" aria-label="Coaches">
            {coaches.data.coaches.map((coach) => (
              <li key={coach.coachId} className="flex flex-wrap items-center justify-between gap-3 py-2">
                <span>
                  {coach.fullName} · {coach.members} of {coach.maxMembers}
                </span>
                <CapacityInput name={coach.fullName} value={coach.maxMembers} onSave={(max) => capacity.mutate({ id: coach.coachId, max })} />
              </li>
            ))}
          </ul>
          <form
            noValidate
            className="grid gap-4 sm:grid-cols-[1fr_1fr_auto] sm:items-end"
            onSubmit={(event) => {
              event.preventDefault()
              assign.mutate()
            }}
          >
            <Field id={ids.email} label="Elite member's email" error={errorFor(assign.error, 'memberEmail')}>
              {(control) => <Input {...control} type="email" value={email} onChange={(event) => setEmail(event.target.value)} />}
            </Field>
            <Field id={ids.coach} label="Coach" error={errorFor(assign.error, 'coachId')}>
              {(control) => (
                <NativeSelect {...control} value={coachId} onChange={(event) => setCoachId(event.target.value)}>
                  <option value="">Choose a coach</option>
                  {coaches.data.coaches.map((coach) => (
                    <option key={coach.coachId} value={coach.coachId}>
                      {coach.fullName}
                    </option>
                  ))}
                </NativeSelect>
              )}
            </Field>
            <Button type="submit" disabled={assign.isPending}>
              Assign coach
            </Button>
          </form>
        </>
      ) : (
        <Spinner label="Loading coaches..." showLabel />
      )}
    </SectionCard>
  )
}

function CapacityInput({ name, value, onSave }: { name: string; value: number; onSave: (max: number) => void }) {
  const [max, setMax] = useState(String(value))
  return (
    <span className="flex items-center gap-2">
      <Input aria-label={`Capacity of ${name}`} type="number" min={0} max={500} className="w-24" value={max} onChange={(event) => setMax(event.target.value)} />
      <Button variant="outline" size="sm" onClick={() => onSave(Number(max))}>
        Save
      </Button>
    </span>
  )
}
