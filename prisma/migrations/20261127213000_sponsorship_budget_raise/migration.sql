-- Raises a `reserved` operation's reservation to `amount` (a replacement user operation may cost
-- more than the one it replaces), in one statement: the reservation's day grows by the difference
-- only while it stays within `budget` (the conditional update re-checks the locked row). Answers
-- 'raised'; 'existing' when the reservation already holds as much; 'exceeded' with the day's total
-- (nothing changed); 'not_reserved' once settled or released; 'unknown' for an id never reserved.
CREATE FUNCTION "sponsorship_budget_raise"(operation text, amount numeric, budget numeric, OUT outcome text, OUT day_used numeric, OUT held numeric)
LANGUAGE plpgsql AS $$
DECLARE
  r sponsorship_budget_reservations%ROWTYPE;
BEGIN
  SELECT * INTO r FROM sponsorship_budget_reservations WHERE operation_id = operation FOR UPDATE;
  IF NOT FOUND THEN
    outcome := 'unknown';
    RETURN;
  END IF;
  held := r.amount;
  IF r.status <> 'reserved' THEN
    outcome := 'not_reserved';
    RETURN;
  END IF;
  IF amount <= r.amount THEN
    outcome := 'existing';
    SELECT b.used INTO day_used FROM sponsorship_budget b WHERE b.project_id = r.project_id AND b.environment = r.environment AND b.day = r.day;
    RETURN;
  END IF;
  UPDATE sponsorship_budget b SET used = b.used + (amount - r.amount)
  WHERE b.project_id = r.project_id AND b.environment = r.environment AND b.day = r.day AND b.used + (amount - r.amount) <= budget
  RETURNING b.used INTO day_used;
  IF NOT FOUND THEN
    outcome := 'exceeded';
    SELECT coalesce((SELECT b.used FROM sponsorship_budget b WHERE b.project_id = r.project_id AND b.environment = r.environment AND b.day = r.day), 0) INTO day_used;
    RETURN;
  END IF;
  UPDATE sponsorship_budget_reservations SET amount = sponsorship_budget_raise.amount WHERE operation_id = operation;
  outcome := 'raised';
  held := amount;
END $$;
