CREATE TABLE "usage_days" (
	"user_id" uuid NOT NULL,
	"local_date" date NOT NULL,
	"chat_turns" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "usage_days_user_id_local_date_pk" PRIMARY KEY("user_id","local_date"),
	CONSTRAINT "usage_days_chat_turns_check" CHECK ("usage_days"."chat_turns" >= 0)
);
--> statement-breakpoint
CREATE TABLE "usage_voice_calls" (
	"call_id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"local_date" date NOT NULL,
	"seconds" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "usage_voice_calls_seconds_check" CHECK ("usage_voice_calls"."seconds" >= 0)
);
--> statement-breakpoint
ALTER TABLE "usage_days" ADD CONSTRAINT "usage_days_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_voice_calls" ADD CONSTRAINT "usage_voice_calls_call_id_coaching_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."coaching_calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_voice_calls" ADD CONSTRAINT "usage_voice_calls_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "usage_voice_calls_user_date_idx" ON "usage_voice_calls" USING btree ("user_id","local_date");