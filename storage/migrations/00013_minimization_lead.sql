-- The lead knob of a minimisation step (search.MinStep.Lead): the most
-- important knob of a dependency group, which carries the group's measured
-- contribution in export and the report; '' for steps stored before it.

-- +goose Up
ALTER TABLE minimization_steps ADD COLUMN lead TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE minimization_steps DROP COLUMN lead;
