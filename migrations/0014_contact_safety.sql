CREATE TABLE "inbound_text_accounts" (
	"message_sid" text NOT NULL,
	"user_id" uuid NOT NULL,
	CONSTRAINT "inbound_text_accounts_message_sid_user_id_pk" PRIMARY KEY("message_sid","user_id")
);
--> statement-breakpoint
CREATE TABLE "inbound_text_receipts" (
	"message_sid" text PRIMARY KEY NOT NULL,
	"received_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "inbound_text_sweeps" (
	"to_number" text PRIMARY KEY NOT NULL,
	"swept_until" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "do_not_contact" (
	"number_digest" text PRIMARY KEY NOT NULL,
	"source" text NOT NULL,
	"message_sid" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "do_not_contact_source_check" CHECK ("do_not_contact"."source" in ('inbound_text', 'carrier_opt_out'))
);
--> statement-breakpoint
CREATE TABLE "phone_proofs" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"phone_number" text NOT NULL,
	"method" text NOT NULL,
	"message_sid" text,
	"proven_at" timestamp with time zone NOT NULL,
	CONSTRAINT "phone_proofs_method_check" CHECK ("phone_proofs"."method" in ('inbound_text', 'code')),
	CONSTRAINT "phone_proofs_phone_digits" CHECK ("phone_proofs"."phone_number" ~ '^[0-9]{10}$')
);
--> statement-breakpoint
ALTER TABLE "contact_changes" DROP CONSTRAINT "contact_changes_kind_check";--> statement-breakpoint
ALTER TABLE "inbound_text_accounts" ADD CONSTRAINT "inbound_text_accounts_message_sid_inbound_texts_message_sid_fk" FOREIGN KEY ("message_sid") REFERENCES "public"."inbound_texts"("message_sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inbound_text_accounts" ADD CONSTRAINT "inbound_text_accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_proofs" ADD CONSTRAINT "phone_proofs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "inbound_text_accounts_user_idx" ON "inbound_text_accounts" USING btree ("user_id");--> statement-breakpoint
ALTER TABLE "contact_changes" ADD CONSTRAINT "contact_changes_kind_check" CHECK ("contact_changes"."kind" in ('email', 'phone', 'phone_proof'));--> statement-breakpoint
-- The texts already taken are not taken again by the first sweep of Twilio's log.
INSERT INTO "inbound_text_receipts" ("message_sid", "received_at")
SELECT "message_sid", "received_at" FROM "inbound_texts"
ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- The texts received so far, held by the accounts that used the sender's number when each arrived
-- (an account made after a text never held it).
INSERT INTO "inbound_text_accounts" ("message_sid", "user_id")
SELECT t."message_sid", u."id"
FROM "inbound_texts" t
JOIN "users" u ON u."created_at" <= t."received_at"
LEFT JOIN "profiles" p ON p."id" = u."id"
WHERE t."from_number" = '+1' || coalesce(p."phone_number", u."phone_number")
ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- A number already proven: a START texted from it, after the account was made, to the account's
-- number as it is now, while it was the only account using that number (the latest such START).
INSERT INTO "phone_proofs" ("user_id", "phone_number", "method", "message_sid", "proven_at")
SELECT DISTINCT ON (a."user_id") a."user_id", substr(t."from_number", 3), 'inbound_text', t."message_sid", t."received_at"
FROM "inbound_text_accounts" a
JOIN "inbound_texts" t ON t."message_sid" = a."message_sid"
JOIN "users" u ON u."id" = a."user_id"
LEFT JOIN "profiles" p ON p."id" = u."id"
WHERE t."keyword" = 'start'
  AND t."from_number" = '+1' || coalesce(p."phone_number", u."phone_number")
  AND (SELECT count(*) FROM "inbound_text_accounts" b WHERE b."message_sid" = t."message_sid") = 1
ORDER BY a."user_id", t."received_at" DESC;
--> statement-breakpoint
-- The numbers whose last word was a STOP (texted, or a text Twilio refused with 21610 since their
-- last START) stay stopped.
INSERT INTO "do_not_contact" ("number_digest", "source", "message_sid", "created_at")
SELECT encode(sha256(convert_to(n."number", 'UTF8')), 'hex'), n."source", n."message_sid", n."at"
FROM (
  SELECT DISTINCT ON (e."number") e."number", e."source", e."message_sid", e."at", e."stops"
  FROM (
    SELECT "from_number" AS "number", 'inbound_text' AS "source", "message_sid", "received_at" AS "at", "keyword" = 'stop' AS "stops"
    FROM "inbound_texts" WHERE "keyword" IN ('stop', 'start')
    UNION ALL
    SELECT "to_number", 'carrier_opt_out', "provider_sid", "updated_at", true
    FROM "text_messages" WHERE "error_code" = 21610 AND "to_number" IS NOT NULL
  ) e
  ORDER BY e."number", e."at" DESC
) n
WHERE n."stops"
ON CONFLICT DO NOTHING;
