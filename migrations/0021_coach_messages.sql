CREATE TABLE "coach_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "coach_messages_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"member_user_id" uuid NOT NULL,
	"coach_user_id" uuid,
	"from" text NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"read_at" timestamp with time zone,
	"notified_at" timestamp with time zone,
	"crisis" boolean DEFAULT false NOT NULL,
	CONSTRAINT "coach_messages_from_check" CHECK ("coach_messages"."from" in ('member', 'coach'))
);
--> statement-breakpoint
ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_action_check";--> statement-breakpoint
ALTER TABLE "coach_messages" ADD CONSTRAINT "coach_messages_member_user_id_users_id_fk" FOREIGN KEY ("member_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coach_messages" ADD CONSTRAINT "coach_messages_coach_user_id_users_id_fk" FOREIGN KEY ("coach_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "coach_messages_member_idx" ON "coach_messages" USING btree ("member_user_id","seq");--> statement-breakpoint
CREATE INDEX "coach_messages_coach_idx" ON "coach_messages" USING btree ("coach_user_id");--> statement-breakpoint
CREATE INDEX "coach_messages_unread_idx" ON "coach_messages" USING btree ("created_at") WHERE "coach_messages"."read_at" is null and "coach_messages"."notified_at" is null;--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_action_check" CHECK ("audit_events"."action" in ('staff_account_created', 'role_granted', 'role_revoked', 'two_factor_enabled', 'two_factor_disabled', 'recovery_code_used', 'recovery_codes_regenerated', 'webhook_event_retried', 'support_ticket_viewed', 'support_reply_sent', 'support_note_added', 'support_status_changed', 'coach_assigned', 'coach_member_viewed', 'coach_note_written', 'coach_messages_viewed'));