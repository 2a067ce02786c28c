CREATE TABLE "consent_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "consent_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" uuid NOT NULL,
	"channel" text NOT NULL,
	"action" text NOT NULL,
	"source" text NOT NULL,
	"text" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"ip" text,
	"user_agent" text,
	"message_sid" text,
	"detail" jsonb,
	CONSTRAINT "consent_events_channel_check" CHECK ("consent_events"."channel" in ('calls', 'texts', 'report_emails')),
	CONSTRAINT "consent_events_action_check" CHECK ("consent_events"."action" in ('granted', 'revoked')),
	CONSTRAINT "consent_events_source_check" CHECK ("consent_events"."source" in ('sign_up', 'opt_in_screen', 'settings', 'inbound_text', 'email_unsubscribe', 'carrier_opt_out')),
	CONSTRAINT "consent_events_inbound_sid" CHECK ("consent_events"."source" <> 'inbound_text' or "consent_events"."message_sid" is not null)
);
--> statement-breakpoint
CREATE TABLE "consent_states" (
	"user_id" uuid NOT NULL,
	"channel" text NOT NULL,
	"granted" boolean NOT NULL,
	"event_id" bigint NOT NULL,
	"at" timestamp with time zone NOT NULL,
	CONSTRAINT "consent_states_user_id_channel_pk" PRIMARY KEY("user_id","channel"),
	CONSTRAINT "consent_states_channel_check" CHECK ("consent_states"."channel" in ('calls', 'texts', 'report_emails'))
);
--> statement-breakpoint
CREATE TABLE "inbound_texts" (
	"message_sid" text PRIMARY KEY NOT NULL,
	"from_number" text NOT NULL,
	"to_number" text NOT NULL,
	"body" text NOT NULL,
	"keyword" text,
	"matched_users" integer NOT NULL,
	"reply" text,
	"received_at" timestamp with time zone NOT NULL,
	CONSTRAINT "inbound_texts_keyword_check" CHECK ("inbound_texts"."keyword" is null or "inbound_texts"."keyword" in ('stop', 'start', 'help'))
);
--> statement-breakpoint
CREATE TABLE "text_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"dedupe_key" text NOT NULL,
	"call_id" uuid,
	"content" text NOT NULL,
	"body" text,
	"to_number" text,
	"status" text NOT NULL,
	"hold_until" timestamp with time zone,
	"local_date" date,
	"provider_sid" text,
	"error_code" integer,
	"skip_reason" text,
	"segments" smallint,
	"attempts" smallint DEFAULT 0 NOT NULL,
	"lease_until" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"sent_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "text_messages_kind_check" CHECK ("text_messages"."kind" in ('recap', 'missed_call', 'weekly_report')),
	CONSTRAINT "text_messages_status_check" CHECK ("text_messages"."status" in ('held', 'sending', 'sent', 'logged', 'delivered', 'undelivered', 'failed', 'skipped'))
);
--> statement-breakpoint
ALTER TABLE "consent_events" ADD CONSTRAINT "consent_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "consent_states" ADD CONSTRAINT "consent_states_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "text_messages" ADD CONSTRAINT "text_messages_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "text_messages" ADD CONSTRAINT "text_messages_call_id_coaching_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."coaching_calls"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "consent_events_user_channel_idx" ON "consent_events" USING btree ("user_id","channel","id");--> statement-breakpoint
CREATE INDEX "consent_events_message_sid_idx" ON "consent_events" USING btree ("message_sid") WHERE "consent_events"."message_sid" is not null;--> statement-breakpoint
CREATE INDEX "inbound_texts_from_idx" ON "inbound_texts" USING btree ("from_number","received_at");--> statement-breakpoint
CREATE UNIQUE INDEX "text_messages_dedupe_key" ON "text_messages" USING btree ("dedupe_key");--> statement-breakpoint
CREATE UNIQUE INDEX "text_messages_provider_sid_key" ON "text_messages" USING btree ("provider_sid");--> statement-breakpoint
CREATE INDEX "text_messages_user_local_date_idx" ON "text_messages" USING btree ("user_id","local_date");--> statement-breakpoint
CREATE INDEX "text_messages_held_idx" ON "text_messages" USING btree ("hold_until") WHERE "text_messages"."status" = 'held';--> statement-breakpoint
CREATE INDEX "users_phone_number_idx" ON "users" USING btree ("phone_number");--> statement-breakpoint
CREATE INDEX "profiles_phone_number_idx" ON "profiles" USING btree ("phone_number") WHERE "profiles"."phone_number" is not null;--> statement-breakpoint
-- Hand-written (reviewed with the generated part): the ledger is append-only, and consent_states
-- follows its latest row per (user, channel) in the same transaction.
CREATE FUNCTION "consent_events_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A DELETE run by the users foreign key's cascade (a trigger, so depth > 1) removes a deleted
  -- account's rows; nothing else may change or remove a ledger row.
  IF TG_OP = 'DELETE' AND pg_trigger_depth() > 1 THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'consent_events is append-only (% refused)', TG_OP USING ERRCODE = 'integrity_constraint_violation';
END
$$;--> statement-breakpoint
CREATE TRIGGER "consent_events_append_only" BEFORE UPDATE OR DELETE ON "consent_events" FOR EACH ROW EXECUTE FUNCTION "consent_events_append_only"();--> statement-breakpoint
CREATE FUNCTION "consent_events_to_state"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "consent_states" ("user_id", "channel", "granted", "event_id", "at")
  VALUES (NEW."user_id", NEW."channel", NEW."action" = 'granted', NEW."id", NEW."at")
  ON CONFLICT ("user_id", "channel") DO UPDATE
    SET "granted" = EXCLUDED."granted", "event_id" = EXCLUDED."event_id", "at" = EXCLUDED."at"
    -- The ledger's order is its append order (the identity), not the clock that wrote "at".
    WHERE "consent_states"."event_id" < EXCLUDED."event_id";
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "consent_events_state" AFTER INSERT ON "consent_events" FOR EACH ROW EXECUTE FUNCTION "consent_events_to_state"();--> statement-breakpoint
-- The consents given before the ledger existed, marked as derived. Sign-up granted calls (its
-- checkbox's text, version 2026-11-01 being the only one ever shown); the opt-in screen granted
-- texts (with the exact text it recorded); the schedule page's switch revoked calls.
INSERT INTO "consent_events" ("user_id", "channel", "action", "source", "text", "at", "detail")
SELECT "id", 'calls', 'granted', 'sign_up',
  CASE WHEN "communication_consent_version" = '2026-11-01'
    THEN 'I agree to receive calls and text messages from Momentum Coach. Message frequency varies. Message and data rates may apply. Reply HELP for help or STOP to cancel. Consent is not a condition of purchase.'
    ELSE 'Sign-up consent, version ' || "communication_consent_version" END,
  "communication_consent_at", jsonb_build_object('backfilled', true, 'consentVersion', "communication_consent_version")
FROM "users";--> statement-breakpoint
INSERT INTO "consent_events" ("user_id", "channel", "action", "source", "text", "at", "detail")
SELECT "id", 'texts', 'granted', 'opt_in_screen', coalesce("sms_opt_in_consent_text", 'Text opt-in (text not recorded)'), "sms_opted_in_at", jsonb_build_object('backfilled', true)
FROM "profiles" WHERE "sms_opted_in_at" IS NOT NULL;--> statement-breakpoint
INSERT INTO "consent_events" ("user_id", "channel", "action", "source", "text", "at", "detail")
SELECT "id", 'calls', 'revoked', 'settings', 'Daily coaching calls: Off', "calls_consent_revoked_at", jsonb_build_object('backfilled', true)
FROM "profiles" WHERE "calls_consent_revoked_at" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "profiles" DROP COLUMN "calls_consent_revoked_at";
