CREATE TABLE "coach_assignments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"member_user_id" uuid NOT NULL,
	"coach_user_id" uuid,
	"started_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	"how" text NOT NULL,
	"assigned_by" uuid,
	CONSTRAINT "coach_assignments_how_check" CHECK ("coach_assignments"."how" in ('auto', 'admin'))
);
--> statement-breakpoint
CREATE TABLE "coach_notes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"member_user_id" uuid NOT NULL,
	"coach_user_id" uuid,
	"body" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "coach_profiles" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"bio" text DEFAULT '' NOT NULL,
	"time_zone" text DEFAULT 'America/New_York' NOT NULL,
	"working_days" smallint[] DEFAULT '{1,2,3,4,5}'::smallint[] NOT NULL,
	"start_time" text DEFAULT '09:00' NOT NULL,
	"end_time" text DEFAULT '17:00' NOT NULL,
	"reply_within_hours" smallint DEFAULT 4 NOT NULL,
	"max_members" integer DEFAULT 25 NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "coach_profiles_max_members_check" CHECK ("coach_profiles"."max_members" between 0 and 500),
	CONSTRAINT "coach_profiles_reply_check" CHECK ("coach_profiles"."reply_within_hours" between 1 and 72)
);
--> statement-breakpoint
ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_action_check";--> statement-breakpoint
ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_target_type_check";--> statement-breakpoint
ALTER TABLE "coach_assignments" ADD CONSTRAINT "coach_assignments_member_user_id_users_id_fk" FOREIGN KEY ("member_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coach_assignments" ADD CONSTRAINT "coach_assignments_coach_user_id_users_id_fk" FOREIGN KEY ("coach_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coach_assignments" ADD CONSTRAINT "coach_assignments_assigned_by_users_id_fk" FOREIGN KEY ("assigned_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coach_notes" ADD CONSTRAINT "coach_notes_member_user_id_users_id_fk" FOREIGN KEY ("member_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coach_notes" ADD CONSTRAINT "coach_notes_coach_user_id_users_id_fk" FOREIGN KEY ("coach_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coach_profiles" ADD CONSTRAINT "coach_profiles_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "coach_assignments_current_key" ON "coach_assignments" USING btree ("member_user_id") WHERE "coach_assignments"."ended_at" is null;--> statement-breakpoint
CREATE INDEX "coach_assignments_coach_idx" ON "coach_assignments" USING btree ("coach_user_id") WHERE "coach_assignments"."ended_at" is null;--> statement-breakpoint
CREATE INDEX "coach_assignments_member_idx" ON "coach_assignments" USING btree ("member_user_id","started_at");--> statement-breakpoint
CREATE INDEX "coach_assignments_assigned_by_idx" ON "coach_assignments" USING btree ("assigned_by");--> statement-breakpoint
CREATE INDEX "coach_notes_member_idx" ON "coach_notes" USING btree ("member_user_id","created_at");--> statement-breakpoint
CREATE INDEX "coach_notes_coach_idx" ON "coach_notes" USING btree ("coach_user_id");--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_action_check" CHECK ("audit_events"."action" in ('staff_account_created', 'role_granted', 'role_revoked', 'two_factor_enabled', 'two_factor_disabled', 'recovery_code_used', 'recovery_codes_regenerated', 'webhook_event_retried', 'support_ticket_viewed', 'support_reply_sent', 'support_note_added', 'support_status_changed', 'coach_assigned', 'coach_member_viewed', 'coach_note_written'));--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_target_type_check" CHECK ("audit_events"."target_type" in ('staff_role', 'two_factor', 'webhook_event', 'support_ticket', 'coach'));