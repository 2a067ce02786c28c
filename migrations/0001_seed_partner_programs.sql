-- The default program and the sample partner program of the spec (spec/README.md).
INSERT INTO "partner_programs" ("code", "company_name") VALUES
  ('GENERAL', 'General'),
  ('NORTHWIND', 'Northwind Traders')
ON CONFLICT ("code") DO NOTHING;
