-- Answers say what they are: each callback name keeps the kind of its answer, so readers tell an
-- override (an answer that replaces a proposed value) from a veto. For an override, the events'
-- `vetoed` says, as it always has, whether the answer differed from the proposal: readers call it
-- "overridden". A plain answer (kind 'value') is stored with `vetoed` NULL, like a notification.
--
-- `answer` is 'none', 'veto', 'override' or 'value' for a callback, as last recorded (a recorder
-- sets it each session), and NULL for inputs and for names not recorded since this migration; a
-- NULL reads as before (an override that overrode reads as vetoed). It is kept per name, not per
-- event: the events table and the timeline view keep their columns, and no event grows.

ALTER TABLE callbacks ADD COLUMN answer TEXT;
