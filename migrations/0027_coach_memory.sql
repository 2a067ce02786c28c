CREATE TABLE "memory_episodes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"channel" text NOT NULL,
	"source_id" text NOT NULL,
	"summary" text NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memory_episodes_summary_length" CHECK (char_length("memory_episodes"."summary") between 1 and 4000),
	CONSTRAINT "memory_episodes_channel_check" CHECK ("memory_episodes"."channel" in ('call', 'voice', 'chat', 'text', 'coach_session'))
);
--> statement-breakpoint
CREATE TABLE "memory_extractions" (
	"user_id" uuid NOT NULL,
	"channel" text NOT NULL,
	"key" text NOT NULL,
	"facts" integer DEFAULT 0 NOT NULL,
	"extracted_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memory_extractions_channel_check" CHECK ("memory_extractions"."channel" in ('call', 'voice', 'chat', 'text', 'coach_session'))
);
--> statement-breakpoint
CREATE TABLE "memory_facts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"statement" text NOT NULL,
	"subject" text NOT NULL,
	"source_channel" text NOT NULL,
	"source_id" text NOT NULL,
	"valid_from" timestamp with time zone NOT NULL,
	"valid_to" timestamp with time zone,
	"superseded_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memory_facts_statement_length" CHECK (char_length("memory_facts"."statement") between 1 and 500),
	CONSTRAINT "memory_facts_subject_check" CHECK ("memory_facts"."subject" in ('faith', 'family', 'fitness', 'finance', 'friends', 'fun', 'service', 'personal_development', 'health', 'work', 'preferences', 'other')),
	CONSTRAINT "memory_facts_source_check" CHECK ("memory_facts"."source_channel" in ('call', 'voice', 'chat', 'text', 'coach_session', 'person')),
	CONSTRAINT "memory_facts_validity_check" CHECK ("memory_facts"."valid_to" is null or "memory_facts"."valid_to" >= "memory_facts"."valid_from")
);
--> statement-breakpoint
CREATE TABLE "memory_forgotten" (
	"user_id" uuid NOT NULL,
	"source_channel" text NOT NULL,
	"source_id" text NOT NULL,
	"fingerprint" text NOT NULL,
	"forgotten_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memory_forgotten_source_check" CHECK ("memory_forgotten"."source_channel" in ('call', 'voice', 'chat', 'text', 'coach_session', 'person'))
);
--> statement-breakpoint
CREATE TABLE "memory_pauses" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"paused_at" timestamp with time zone NOT NULL,
	"resumed_at" timestamp with time zone,
	CONSTRAINT "memory_pauses_interval_check" CHECK ("memory_pauses"."resumed_at" is null or "memory_pauses"."resumed_at" >= "memory_pauses"."paused_at")
);
--> statement-breakpoint
ALTER TABLE "memory_episodes" ADD CONSTRAINT "memory_episodes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_extractions" ADD CONSTRAINT "memory_extractions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_facts" ADD CONSTRAINT "memory_facts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_facts" ADD CONSTRAINT "memory_facts_superseded_by_memory_facts_id_fk" FOREIGN KEY ("superseded_by") REFERENCES "public"."memory_facts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_forgotten" ADD CONSTRAINT "memory_forgotten_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_pauses" ADD CONSTRAINT "memory_pauses_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "memory_episodes_source_idx" ON "memory_episodes" USING btree ("user_id","channel","source_id");--> statement-breakpoint
CREATE INDEX "memory_episodes_recent_idx" ON "memory_episodes" USING btree ("user_id","occurred_at" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "memory_extractions_key_idx" ON "memory_extractions" USING btree ("user_id","channel","key");--> statement-breakpoint
CREATE INDEX "memory_facts_current_idx" ON "memory_facts" USING btree ("user_id","valid_from" DESC NULLS LAST) WHERE "memory_facts"."valid_to" is null;--> statement-breakpoint
CREATE INDEX "memory_facts_search_idx" ON "memory_facts" USING gin (to_tsvector('english', "statement"));--> statement-breakpoint
CREATE INDEX "memory_facts_source_idx" ON "memory_facts" USING btree ("user_id","source_channel","source_id");--> statement-breakpoint
CREATE UNIQUE INDEX "memory_forgotten_idx" ON "memory_forgotten" USING btree ("user_id","source_channel","source_id","fingerprint");--> statement-breakpoint
CREATE UNIQUE INDEX "memory_pauses_open_idx" ON "memory_pauses" USING btree ("user_id") WHERE "memory_pauses"."resumed_at" is null;--> statement-breakpoint
CREATE INDEX "memory_pauses_user_idx" ON "memory_pauses" USING btree ("user_id","paused_at" DESC NULLS LAST);