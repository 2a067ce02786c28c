/**
 * The staff page's section for admins (docs/decisions/072, issue 35): every staff account with its
 * roles and two-factor sign-in, giving roles by email (a new address gets an account and an emailed
 * invitation, as `npm run staff:add` does) and taking them away. Each change is in the person's
 * audit log.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useId, useState } from 'react'
import { STAFF_ROLE_NAMES, STAFF_ROLES, type StaffRole } from '#common/staff-roles'
import { GrantStaffRolesResponseSchema, RevokeStaffRolesResponseSchema, StaffAccountsResponseSchema } from '#common/staff'
import { SectionCard } from '#web/components/section-card'
import { Badge } from '#web/components/ui/badge'
import { Button } from '#web/components/ui/button'
import { Field } from '#web/components/ui/field'
import { Input } from '#web/components/ui/input'
import { Spinner } from '#web/components/ui/spinner'
import { api, isApiError } from '#web/lib/api-client'
import { toast } from '#web/lib/toast'

const accountsKey = ['staff', 'admin', 'accounts'] as const
const fieldError = (error: unknown, field: string) => (isApiError(error) && error.field === field ? error.message : undefined)

export function StaffAdmin({ selfEmail }: { selfEmail: string }) {
  const queryClient = useQueryClient()
  const accounts = useQuery({ queryKey: accountsKey, queryFn: ({ signal }) => api.get('/api/staff/admin/staff', StaffAccountsResponseSchema, { signal }) })
  const [email, setEmail] = useState('')
  const [fullName, setFullName] = useState('')
  const [roles, setRoles] = useState<StaffRole[]>([])
  const ids = { email: useId(), name: useId(), roles: useId() }
  const grant = useMutation({
    mutationFn: () => api.post('/api/staff/admin/staff', { email, roles, ...(fullName.trim() ? { fullName } : {}) }, GrantStaffRolesResponseSchema),
    onSuccess: async (result) => {
      setEmail('')
      setFullName('')
      setRoles([])
      await queryClient.invalidateQueries({ queryKey: accountsKey })
      void toast({
        title: 'Roles given',
        description: result.created ? (result.invitationSent ? `${result.account.email} is invited by email to choose a password.` : 'The account is made, but the invitation email failed: they can use "Forgot Password?".') : `${result.account.fullName} now has ${result.account.roles.map((role) => STAFF_ROLE_NAMES[role]).join(', ')}.`,
      })
    },
    onError: (error) => (isApiError(error) && error.field ? undefined : void toast({ title: 'Not saved', description: error.message, variant: 'destructive' })),
  })
  const revoke = useMutation({
    mutationFn: (input: { email: string; role: StaffRole }) => api.post('/api/staff/admin/staff/revoke', { email: input.email, roles: [input.role] }, RevokeStaffRolesResponseSchema),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountsKey }),
    onError: (error) => void toast({ title: 'Not removed', description: error.message, variant: 'destructive' }),
  })
  return (
    <SectionCard title="Staff accounts" description="Give and take away staff roles. Staff need two-factor sign-in before any staff page opens.">
      {accounts.data ? (
        <ul className="mb-6 divide-y" aria-label="Staff accounts">
          {accounts.data.staff.map((account) => (
            <li key={account.userId} className="flex flex-wrap items-center justify-between gap-2 py-2">
              <span>
                <span className="font-medium">{account.fullName}</span> <span className="text-sm text-muted-foreground">{account.email}</span>
                {account.twoFactorOn ? null : <Badge variant="destructive" className="ml-2">No two-factor sign-in</Badge>}
              </span>
              <span className="flex flex-wrap gap-2">
                {account.roles.map((role) => (
                  <Button
                    key={role}
                    variant="outline"
                    size="sm"
                    disabled={revoke.isPending || (account.email === selfEmail && role === 'admin')}
                    onClick={() => revoke.mutate({ email: account.email, role })}
                    aria-label={`Remove the ${STAFF_ROLE_NAMES[role]} role from ${account.fullName}`}
                  >
                    {STAFF_ROLE_NAMES[role]} ×
                  </Button>
                ))}
              </span>
            </li>
          ))}
        </ul>
      ) : (
        <Spinner label="Loading staff accounts..." showLabel />
      )}
      <form
        noValidate
        className="grid gap-4 sm:grid-cols-2"
        onSubmit={(event) => {
          event.preventDefault()
          grant.mutate()
        }}
      >
        <Field id={ids.email} label="Email" error={fieldError(grant.error, 'email')}>
          {(control) => <Input {...control} type="email" value={email} onChange={(event) => setEmail(event.target.value)} />}
        </Field>
        <Field id={ids.name} label="Name (for a new account)" error={fieldError(grant.error, 'fullName')}>
          {(control) => <Input {...control} value={fullName} onChange={(event) => setFullName(event.target.value)} />}
        </Field>
        <fieldset className="sm:col-span-2" aria-describedby={fieldError(grant.error, 'roles') ? `${ids.roles}-error` : undefined}>
          <legend className="mb-2 text-sm font-medium">Roles</legend>
          <div className="flex flex-wrap gap-4">
            {STAFF_ROLES.map((role) => (
              <label key={role} className="flex items-center gap-1 text-sm">
                <input type="checkbox" checked={roles.includes(role)} onChange={(event) => setRoles((current) => (event.target.checked ? [...current, role] : current.filter((held) => held !== role)))} />
                {STAFF_ROLE_NAMES[role]}
              </label>
            ))}
          </div>
          {fieldError(grant.error, 'roles') ? (
            <p id={`${ids.roles}-error`} className="mt-1 text-sm font-medium text-destructive">
              {fieldError(grant.error, 'roles')}
            </p>
          ) : null}
        </fieldset>
        <div className="sm:col-span-2">
          <Button type="submit" disabled={grant.isPending}>
            Give roles
          </Button>
        </div>
      </form>
    </SectionCard>
  )
}
