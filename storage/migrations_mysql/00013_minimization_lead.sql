-- MySQL dialect of ../migrations/00013_minimization_lead.sql: the lead knob
-- of a minimisation step.

-- +goose Up
ALTER TABLE minimization_steps ADD COLUMN `lead` VARCHAR(255) NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE minimization_steps DROP COLUMN `lead`;
