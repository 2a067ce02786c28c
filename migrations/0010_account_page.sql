CREATE TABLE "contact_changes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"new_value" text NOT NULL,
	"secret_hash" "bytea",
	"attempts" smallint DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "contact_changes_kind_check" CHECK ("contact_changes"."kind" in ('email', 'phone'))
);
--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "last_seen_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
-- A session signed in before this migration was last seen, as far as we know, when it was last verified.
UPDATE "sessions" SET "last_seen_at" = "last_verified_at";--> statement-breakpoint
ALTER TABLE "contact_changes" ADD CONSTRAINT "contact_changes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "contact_changes_user_kind_key" ON "contact_changes" USING btree ("user_id","kind");--> statement-breakpoint
CREATE UNIQUE INDEX "contact_changes_secret_hash_key" ON "contact_changes" USING btree ("secret_hash");--> statement-breakpoint
CREATE INDEX "contact_changes_expires_at_idx" ON "contact_changes" USING btree ("expires_at");