CREATE TABLE "trial_claims" (
	"email_digest" text PRIMARY KEY NOT NULL,
	"claimed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
-- The accounts that have had a trial already: their addresses have had it.
INSERT INTO "trial_claims" ("email_digest", "claimed_at")
SELECT encode(sha256(convert_to(lower(trim(u."email")), 'UTF8')), 'hex'), coalesce(s."created_at", now())
FROM "subscribers" s JOIN "users" u ON u."id" = s."user_id"
WHERE s."trial_end" IS NOT NULL
ON CONFLICT DO NOTHING;
