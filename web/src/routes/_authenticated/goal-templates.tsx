import { createFileRoute } from '@tanstack/react-router'
import { TemplatesPage } from '#web/features/goal-templates/templates-page'
import { StaffAccessError } from '#web/features/staff/staff-access'
import { staffOnly } from '#web/features/staff/staff-only'

/** /goal-templates (docs/decisions/081): coaches and admins write, edit and archive goal templates; coaches offer them to their members. */
export const Route = createFileRoute('/_authenticated/goal-templates')({
  beforeLoad: staffOnly(['coach', 'admin']),
  errorComponent: StaffAccessError,
  component: TemplatesPage,
})
