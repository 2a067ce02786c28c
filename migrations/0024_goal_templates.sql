CREATE TABLE "goal_template_offers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"member_user_id" uuid NOT NULL,
	"template_version_id" uuid NOT NULL,
	"offered_by" uuid,
	"status" text DEFAULT 'offered' NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"answered_at" timestamp with time zone,
	CONSTRAINT "goal_template_offers_status_check" CHECK ("goal_template_offers"."status" in ('offered', 'accepted', 'declined')),
	CONSTRAINT "goal_template_offers_answered_check" CHECK (("goal_template_offers"."status" = 'offered') = ("goal_template_offers"."answered_at" is null))
);
--> statement-breakpoint
CREATE TABLE "goal_template_versions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"template_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"name" text NOT NULL,
	"audience" text NOT NULL,
	"targets" jsonb NOT NULL,
	"ninety_day_goal" text NOT NULL,
	"obstacles" text[] NOT NULL,
	"first_commitments" text[] NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "goal_template_versions_version_check" CHECK ("goal_template_versions"."version" >= 1)
);
--> statement-breakpoint
CREATE TABLE "goal_templates" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"slug" text NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone NOT NULL,
	"archived_at" timestamp with time zone,
	"current_version" integer DEFAULT 1 NOT NULL,
	CONSTRAINT "goal_templates_current_version_check" CHECK ("goal_templates"."current_version" >= 1)
);
--> statement-breakpoint
ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_action_check";--> statement-breakpoint
ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_target_type_check";--> statement-breakpoint
ALTER TABLE "goals" ADD COLUMN "template_version_id" uuid;--> statement-breakpoint
ALTER TABLE "goal_template_offers" ADD CONSTRAINT "goal_template_offers_member_user_id_users_id_fk" FOREIGN KEY ("member_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "goal_template_offers" ADD CONSTRAINT "goal_template_offers_template_version_id_goal_template_versions_id_fk" FOREIGN KEY ("template_version_id") REFERENCES "public"."goal_template_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "goal_template_offers" ADD CONSTRAINT "goal_template_offers_offered_by_users_id_fk" FOREIGN KEY ("offered_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "goal_template_versions" ADD CONSTRAINT "goal_template_versions_template_id_goal_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."goal_templates"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "goal_template_versions" ADD CONSTRAINT "goal_template_versions_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "goal_templates" ADD CONSTRAINT "goal_templates_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "goal_template_offers_open_key" ON "goal_template_offers" USING btree ("member_user_id") WHERE "goal_template_offers"."status" = 'offered';--> statement-breakpoint
CREATE INDEX "goal_template_offers_member_idx" ON "goal_template_offers" USING btree ("member_user_id","created_at");--> statement-breakpoint
CREATE INDEX "goal_template_offers_version_idx" ON "goal_template_offers" USING btree ("template_version_id");--> statement-breakpoint
CREATE INDEX "goal_template_offers_offered_by_idx" ON "goal_template_offers" USING btree ("offered_by");--> statement-breakpoint
CREATE UNIQUE INDEX "goal_template_versions_template_version_key" ON "goal_template_versions" USING btree ("template_id","version");--> statement-breakpoint
CREATE INDEX "goal_template_versions_created_by_idx" ON "goal_template_versions" USING btree ("created_by");--> statement-breakpoint
CREATE UNIQUE INDEX "goal_templates_slug_key" ON "goal_templates" USING btree ("slug");--> statement-breakpoint
CREATE INDEX "goal_templates_created_by_idx" ON "goal_templates" USING btree ("created_by");--> statement-breakpoint
ALTER TABLE "goals" ADD CONSTRAINT "goals_template_version_id_goal_template_versions_id_fk" FOREIGN KEY ("template_version_id") REFERENCES "public"."goal_template_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "goals_template_version_idx" ON "goals" USING btree ("template_version_id");--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_action_check" CHECK ("audit_events"."action" in ('staff_account_created', 'role_granted', 'role_revoked', 'two_factor_enabled', 'two_factor_disabled', 'recovery_code_used', 'recovery_codes_regenerated', 'webhook_event_retried', 'support_ticket_viewed', 'support_reply_sent', 'support_note_added', 'support_status_changed', 'coach_assigned', 'coach_member_viewed', 'coach_note_written', 'coach_messages_viewed', 'goal_template_offered'));--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_target_type_check" CHECK ("audit_events"."target_type" in ('staff_role', 'two_factor', 'webhook_event', 'support_ticket', 'coach', 'goal_template'));--> statement-breakpoint
-- Hand-written (reviewed with the generated part): a template version is never changed, so what a
-- member took from it stays what it was. The one change it takes is its author's id set to null by
-- the users foreign key (ON DELETE SET NULL, run by a trigger, so depth > 1), the rest as it was.
CREATE FUNCTION "goal_template_versions_unchanged"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF pg_trigger_depth() > 1 AND NEW."created_by" IS NULL
    AND (to_jsonb(NEW) - 'created_by') = (to_jsonb(OLD) - 'created_by')
  THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'goal_template_versions are never changed: write a new version' USING ERRCODE = 'integrity_constraint_violation';
END
$$;--> statement-breakpoint
CREATE TRIGGER "goal_template_versions_unchanged" BEFORE UPDATE ON "goal_template_versions" FOR EACH ROW EXECUTE FUNCTION "goal_template_versions_unchanged"();
