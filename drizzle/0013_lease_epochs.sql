CREATE SEQUENCE "public"."node_lease_epochs" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
-- Leases taken before this sequence existed keep their epochs: new ones start above them all.
SELECT setval('"public"."node_lease_epochs"', (SELECT coalesce(max("epoch"), 0) + 1 FROM "node_leases"), false);
