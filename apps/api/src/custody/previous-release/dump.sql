--
-- PostgreSQL database dump
--

\restrict tdG7Ty6V55qmoGO9APSQJsdikA4pLc9rR2ql2gGlKuK5YsdvOguWxSVtxMPHEr0

-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: audit_log_append_only(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.audit_log_append_only() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only: % is not allowed', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$;


--
-- Name: authorization_scope_revisions_append_only(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.authorization_scope_revisions_append_only() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  RAISE EXCEPTION '% rows are history: never updated or deleted', TG_TABLE_NAME
    USING ERRCODE = 'insufficient_privilege';
END;
$$;


--
-- Name: policy_spend_reserve(uuid, text, uuid, uuid, text, text[], bigint[], timestamp with time zone[], numeric[], numeric[], numeric[], uuid, jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.policy_spend_reserve(project uuid, env text, api_key uuid, wallet uuid, net text, assets text[], windows bigint[], starts timestamp with time zone[], amounts numeric[], mins numeric[], maxs numeric[], reservation_id uuid, charges jsonb) RETURNS numeric[]
    LANGUAGE plpgsql
    AS $$
DECLARE
  found_used numeric;
  seen numeric[] := '{}';
  moved boolean := false;
BEGIN
  FOR i IN 1 .. cardinality(assets) LOOP
    INSERT INTO policy_spend_meters AS m (project_id, environment, api_key_id, wallet_id, network, asset, window_ms, window_start, used)
    VALUES (project, env, api_key, wallet, net, assets[i], windows[i], starts[i], amounts[i])
    ON CONFLICT (project_id, environment, api_key_id, wallet_id, network, asset, window_ms, window_start)
    DO UPDATE SET used = m.used + excluded.used, updated_at = now()
    RETURNING m.used - amounts[i] INTO found_used;
    seen := seen || found_used;
    IF (mins[i] IS NOT NULL AND found_used < mins[i]) OR (maxs[i] IS NOT NULL AND found_used > maxs[i]) THEN
      moved := true;
    END IF;
  END LOOP;
  IF moved THEN
    RAISE EXCEPTION 'policy spend meters moved' USING ERRCODE = 'P0001', DETAIL = array_to_string(seen, ',');
  END IF;
  IF reservation_id IS NOT NULL THEN
    INSERT INTO policy_spend_reservations (id, project_id, environment, status, charges)
    VALUES (reservation_id, project, env, 'reserved', charges);
  END IF;
  RETURN seen;
END $$;


--
-- Name: policy_spend_settle(uuid, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.policy_spend_settle(reservation_id uuid, settle_to text) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
DECLARE
  held jsonb;
  c record;
BEGIN
  UPDATE policy_spend_reservations SET status = settle_to, settled_at = now()
  WHERE id = reservation_id AND status = 'reserved'
  RETURNING charges INTO held;
  IF held IS NULL THEN
    RETURN false;
  END IF;
  IF settle_to = 'released' THEN
    FOR c IN
      SELECT * FROM jsonb_to_recordset(held) AS x(
        "projectId" uuid, environment text, "apiKeyId" uuid, "walletId" uuid, network text, asset text,
        "windowMs" bigint, "windowStart" timestamptz, amount numeric)
    LOOP
      UPDATE policy_spend_meters SET used = used - c.amount, updated_at = now()
      WHERE project_id = c."projectId" AND environment = c.environment AND api_key_id = c."apiKeyId"
        AND wallet_id = c."walletId" AND network = c.network AND asset = c.asset
        AND window_ms = c."windowMs" AND window_start = c."windowStart";
    END LOOP;
  END IF;
  RETURN true;
END $$;


--
-- Name: policy_versions_no_delete(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.policy_versions_no_delete() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  RAISE EXCEPTION 'policy_versions are never deleted; deactivate the policy instead'
    USING ERRCODE = 'insufficient_privilege';
END;
$$;


--
-- Name: sponsorship_budget_raise(text, numeric, numeric); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.sponsorship_budget_raise(operation text, amount numeric, budget numeric, OUT outcome text, OUT day_used numeric, OUT held numeric) RETURNS record
    LANGUAGE plpgsql
    AS $$
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


--
-- Name: sponsorship_budget_release(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.sponsorship_budget_release(operation text, OUT found_status text, OUT held numeric) RETURNS record
    LANGUAGE plpgsql
    AS $$
DECLARE
  r sponsorship_budget_reservations%ROWTYPE;
BEGIN
  SELECT * INTO r FROM sponsorship_budget_reservations WHERE operation_id = operation FOR UPDATE;
  IF NOT FOUND THEN
    found_status := 'unknown';
    RETURN;
  END IF;
  found_status := r.status;
  held := CASE WHEN r.status = 'settled' THEN r.amount ELSE 0 END;
  IF r.status <> 'reserved' THEN
    RETURN;
  END IF;
  UPDATE sponsorship_budget SET used = used - r.amount
  WHERE project_id = r.project_id AND environment = r.environment AND day = r.day;
  UPDATE sponsorship_budget_reservations SET status = 'released', settled_at = now() WHERE operation_id = operation;
END $$;


--
-- Name: sponsorship_budget_reserve(uuid, text, date, text, numeric, numeric); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.sponsorship_budget_reserve(project uuid, env text, budget_day date, operation text, amount numeric, budget numeric, OUT outcome text, OUT day_used numeric, OUT held numeric, OUT held_day date) RETURNS record
    LANGUAGE plpgsql
    AS $$
DECLARE
  existing sponsorship_budget_reservations%ROWTYPE;
  revived boolean := false;
BEGIN
  INSERT INTO sponsorship_budget_reservations (operation_id, project_id, environment, day, amount, status)
  VALUES (operation, project, env, budget_day, amount, 'reserved')
  ON CONFLICT (operation_id) DO NOTHING;
  IF NOT FOUND THEN
    SELECT * INTO existing FROM sponsorship_budget_reservations WHERE operation_id = operation FOR UPDATE;
    IF existing.project_id <> project OR existing.environment <> env THEN
      outcome := 'conflict';
      RETURN;
    END IF;
    IF existing.status <> 'released' THEN
      outcome := 'existing';
      held := existing.amount;
      held_day := existing.day;
      SELECT b.used INTO day_used FROM sponsorship_budget b
      WHERE b.project_id = project AND b.environment = env AND b.day = existing.day;
      RETURN;
    END IF;
    revived := true;
  END IF;

  INSERT INTO sponsorship_budget AS b (project_id, environment, day, used)
  SELECT project, env, budget_day, amount WHERE amount <= budget
  ON CONFLICT (project_id, environment, day)
  DO UPDATE SET used = b.used + excluded.used WHERE b.used + excluded.used <= budget
  RETURNING b.used INTO day_used;
  IF NOT FOUND THEN
    IF NOT revived THEN
      DELETE FROM sponsorship_budget_reservations WHERE operation_id = operation;
    END IF;
    outcome := 'exceeded';
    SELECT coalesce((SELECT b.used FROM sponsorship_budget b WHERE b.project_id = project AND b.environment = env AND b.day = budget_day), 0)
    INTO day_used;
    RETURN;
  END IF;
  IF revived THEN
    UPDATE sponsorship_budget_reservations
    SET day = budget_day, amount = sponsorship_budget_reserve.amount, status = 'reserved', settled_at = NULL
    WHERE operation_id = operation;
  END IF;
  outcome := 'reserved';
  held := amount;
  held_day := budget_day;
END $$;


--
-- Name: sponsorship_budget_settle(text, numeric); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.sponsorship_budget_settle(operation text, actual numeric, OUT found_status text, OUT held numeric) RETURNS record
    LANGUAGE plpgsql
    AS $$
DECLARE
  r sponsorship_budget_reservations%ROWTYPE;
BEGIN
  SELECT * INTO r FROM sponsorship_budget_reservations WHERE operation_id = operation FOR UPDATE;
  IF NOT FOUND THEN
    found_status := 'unknown';
    RETURN;
  END IF;
  found_status := r.status;
  IF r.status = 'settled' THEN
    held := r.amount;
    RETURN;
  END IF;
  UPDATE sponsorship_budget
  SET used = used - (CASE WHEN r.status = 'reserved' THEN r.amount ELSE 0 END) + actual
  WHERE project_id = r.project_id AND environment = r.environment AND day = r.day;
  UPDATE sponsorship_budget_reservations SET status = 'settled', amount = actual, settled_at = now()
  WHERE operation_id = operation;
  held := actual;
END $$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: _prisma_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public._prisma_migrations (
    id character varying(36) NOT NULL,
    checksum character varying(64) NOT NULL,
    finished_at timestamp with time zone,
    migration_name character varying(255) NOT NULL,
    logs text,
    rolled_back_at timestamp with time zone,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    applied_steps_count integer DEFAULT 0 NOT NULL
);


--
-- Name: api_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.api_keys (
    id uuid NOT NULL,
    project_id uuid NOT NULL,
    environment text NOT NULL,
    plan text NOT NULL,
    rate_limit_per_minute integer,
    ip_allowlist text[],
    key_prefix text NOT NULL,
    key_hash text NOT NULL,
    created_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    revoked_at timestamp(3) with time zone,
    CONSTRAINT api_keys_environment_check CHECK ((environment = ANY (ARRAY['development'::text, 'production'::text]))),
    CONSTRAINT api_keys_plan_check CHECK ((plan = ANY (ARRAY['free'::text, 'starter'::text, 'growth'::text, 'scale'::text])))
);


--
-- Name: approval_case_decisions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.approval_case_decisions (
    case_id uuid NOT NULL,
    stage_id text NOT NULL,
    user_id uuid NOT NULL,
    decision text NOT NULL,
    created_at timestamp(3) with time zone NOT NULL,
    CONSTRAINT approval_case_decisions_decision_check CHECK ((decision = ANY (ARRAY['approve'::text, 'reject'::text])))
);


--
-- Name: approval_case_preparations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.approval_case_preparations (
    case_id uuid NOT NULL,
    prepared jsonb NOT NULL,
    created_at timestamp(3) with time zone NOT NULL,
    chain_id integer,
    nonce integer,
    nonce_released_at timestamp(3) with time zone,
    CONSTRAINT approval_case_preparations_nonce_chain CHECK ((((chain_id IS NULL) = (nonce IS NULL)) AND ((nonce_released_at IS NULL) OR (nonce IS NOT NULL))))
);


--
-- Name: approval_cases; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.approval_cases (
    id uuid NOT NULL,
    project_id uuid NOT NULL,
    environment text NOT NULL,
    wallet_id uuid NOT NULL,
    api_key_id uuid NOT NULL,
    case_key text NOT NULL,
    idempotency_key text,
    request_hash text NOT NULL,
    requirements jsonb NOT NULL,
    scope_id text,
    binding_revision integer,
    stages jsonb NOT NULL,
    status text NOT NULL,
    terminal_reason text,
    initiator_user_id uuid,
    request jsonb NOT NULL,
    expires_at timestamp(3) with time zone NOT NULL,
    created_at timestamp(3) with time zone NOT NULL,
    completed_at timestamp(3) with time zone,
    consumed_at timestamp(3) with time zone,
    rejected_at timestamp(3) with time zone,
    expired_at timestamp(3) with time zone,
    invalidated_at timestamp(3) with time zone,
    cancelled_at timestamp(3) with time zone,
    partner_decided_at timestamp(3) with time zone,
    partner_decided_by_id uuid,
    partner_decided_by_type text,
    partner_decision text,
    partner_review boolean DEFAULT false NOT NULL,
    consumed_request_id text,
    CONSTRAINT approval_cases_environment_check CHECK ((environment = ANY (ARRAY['development'::text, 'production'::text]))),
    CONSTRAINT approval_cases_partner_decided_by_type_check CHECK ((partner_decided_by_type = ANY (ARRAY['api_key'::text, 'staff'::text]))),
    CONSTRAINT approval_cases_partner_decision_check CHECK ((partner_decision = ANY (ARRAY['approve'::text, 'reject'::text]))),
    CONSTRAINT approval_cases_partner_decision_complete_check CHECK ((((partner_decision IS NULL) = (partner_decided_at IS NULL)) AND ((partner_decision IS NULL) = (partner_decided_by_type IS NULL)) AND ((partner_decision IS NULL) OR partner_review))),
    CONSTRAINT approval_cases_scope_check CHECK ((((scope_id IS NULL) = (binding_revision IS NULL)) AND ((scope_id IS NOT NULL) OR partner_review))),
    CONSTRAINT approval_cases_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'completed'::text, 'consumed'::text, 'rejected'::text, 'expired'::text, 'invalidated'::text, 'cancelled'::text])))
);


--
-- Name: approval_configuration_revisions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.approval_configuration_revisions (
    id uuid NOT NULL,
    project_id uuid NOT NULL,
    environment text NOT NULL,
    scope_id text NOT NULL,
    policy_id text NOT NULL,
    policy_version integer NOT NULL,
    requirement_id text NOT NULL,
    revision integer NOT NULL,
    "values" jsonb NOT NULL,
    actor_type text NOT NULL,
    actor_id uuid,
    request_id text,
    created_at timestamp(3) with time zone NOT NULL,
    CONSTRAINT approval_configuration_revisions_actor_type_check CHECK ((actor_type = ANY (ARRAY['api_key'::text, 'staff'::text, 'operator'::text]))),
    CONSTRAINT approval_configuration_revisions_environment_check CHECK ((environment = ANY (ARRAY['development'::text, 'production'::text]))),
    CONSTRAINT approval_configuration_revisions_revision_check CHECK ((revision >= 1)),
    CONSTRAINT approval_configuration_revisions_values_check CHECK ((jsonb_typeof("values") = 'object'::text))
);


--
-- Name: approval_configurations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.approval_configurations (
    project_id uuid NOT NULL,
    environment text NOT NULL,
    scope_id text NOT NULL,
    policy_id text NOT NULL,
    policy_version integer NOT NULL,
    requirement_id text NOT NULL,
    revision integer NOT NULL,
    "values" jsonb NOT NULL,
    updated_at timestamp(3) with time zone NOT NULL,
    updated_by_type text NOT NULL,
    updated_by_id uuid,
    CONSTRAINT approval_configurations_environment_check CHECK ((environment = ANY (ARRAY['development'::text, 'production'::text]))),
    CONSTRAINT approval_configurations_policy_version_check CHECK ((policy_version >= 1)),
    CONSTRAINT approval_configurations_revision_check CHECK ((revision >= 1)),
    CONSTRAINT approval_configurations_scope_id_check CHECK ((scope_id ~ '^[A-Za-z0-9._:-]{1,128}$'::text)),
    CONSTRAINT approval_configurations_updated_by_type_check CHECK ((updated_by_type = ANY (ARRAY['api_key'::text, 'staff'::text, 'operator'::text]))),
    CONSTRAINT approval_configurations_values_check CHECK ((jsonb_typeof("values") = 'object'::text))
);


--
-- Name: audit_log; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_log (
    id bigint NOT NULL,
    project_id uuid,
    api_key_id uuid,
    wallet_id uuid,
    request_id text,
    action text NOT NULL,
    details jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: audit_log_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.audit_log_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: audit_log_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.audit_log_id_seq OWNED BY public.audit_log.id;


--
-- Name: authorization_scope_assignment_revisions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.authorization_scope_assignment_revisions (
    id uuid NOT NULL,
    project_id uuid NOT NULL,
    environment text NOT NULL,
    scope_id text NOT NULL,
    user_id uuid NOT NULL,
    revision integer NOT NULL,
    assignments jsonb NOT NULL,
    actor_type text NOT NULL,
    actor_id uuid,
    request_id text,
    created_at timestamp(3) with time zone NOT NULL,
    CONSTRAINT authorization_scope_assignment_revisions_actor_type_check CHECK ((actor_type = ANY (ARRAY['api_key'::text, 'staff'::text, 'operator'::text]))),
    CONSTRAINT authorization_scope_assignment_revisions_assignments_check CHECK ((jsonb_typeof(assignments) = 'array'::text)),
    CONSTRAINT authorization_scope_assignment_revisions_environment_check CHECK ((environment = ANY (ARRAY['development'::text, 'production'::text]))),
    CONSTRAINT authorization_scope_assignment_revisions_revision_check CHECK ((revision >= 1))
);


--
-- Name: authorization_scope_assignments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.authorization_scope_assignments (
    project_id uuid NOT NULL,
    environment text NOT NULL,
    scope_id text NOT NULL,
    user_id uuid NOT NULL,
    revision integer NOT NULL,
    assignments jsonb NOT NULL,
    updated_at timestamp(3) with time zone NOT NULL,
    CONSTRAINT authorization_scope_assignments_assignments_check CHECK ((jsonb_typeof(assignments) = 'array'::text)),
    CONSTRAINT authorization_scope_assignments_environment_check CHECK ((environment = ANY (ARRAY['development'::text, 'production'::text]))),
    CONSTRAINT authorization_scope_assignments_revision_check CHECK ((revision >= 1)),
    CONSTRAINT authorization_scope_assignments_scope_id_check CHECK ((scope_id ~ '^[A-Za-z0-9._:-]{1,128}$'::text))
);


--
-- Name: auto_retry_settings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.auto_retry_settings (
    project_id uuid NOT NULL,
    environment text NOT NULL,
    enabled boolean NOT NULL,
    max_fee_per_gas numeric(78,0),
    updated_at timestamp(3) with time zone NOT NULL,
    updated_by_type text NOT NULL,
    updated_by_id uuid,
    CONSTRAINT auto_retry_settings_max_fee_per_gas_check CHECK (((max_fee_per_gas IS NULL) OR (max_fee_per_gas > (0)::numeric)))
);


--
-- Name: delegation_consents; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.delegation_consents (
    project_id uuid NOT NULL,
    environment text NOT NULL,
    user_id uuid NOT NULL,
    wallet_id uuid NOT NULL,
    policy_id text NOT NULL,
    policy_version integer NOT NULL,
    status text NOT NULL,
    consented_at timestamp(3) with time zone NOT NULL,
    revoked_at timestamp(3) with time zone,
    updated_at timestamp(3) with time zone NOT NULL,
    CONSTRAINT delegation_consents_environment_check CHECK ((environment = ANY (ARRAY['development'::text, 'production'::text]))),
    CONSTRAINT delegation_consents_status_check CHECK (((status = ANY (ARRAY['standing'::text, 'revoked'::text])) AND ((status = 'revoked'::text) = (revoked_at IS NOT NULL))))
);


--
-- Name: enclave_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.enclave_keys (
    id text NOT NULL,
    public_key_pem text NOT NULL,
    kek_id text NOT NULL,
    iv bytea NOT NULL,
    encrypted_private_key bytea NOT NULL,
    created_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    is_current boolean DEFAULT true
);


--
-- Name: events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events (
    id text NOT NULL,
    project_id uuid NOT NULL,
    type text NOT NULL,
    data jsonb NOT NULL,
    created_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    dispatched_at timestamp(3) with time zone,
    seq bigint NOT NULL,
    transaction_id uuid
);


--
-- Name: events_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.events_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: events_seq_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.events_seq_seq OWNED BY public.events.seq;


--
-- Name: idempotency_records; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.idempotency_records (
    project_id uuid NOT NULL,
    key text NOT NULL,
    request_hash text NOT NULL,
    state text NOT NULL,
    response_status integer,
    response_body jsonb,
    response_headers jsonb,
    created_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    expires_at timestamp(3) with time zone NOT NULL,
    lease_expires_at timestamp(3) with time zone,
    lease_owner text,
    CONSTRAINT idempotency_records_state_check CHECK ((state = ANY (ARRAY['running'::text, 'done'::text])))
);


--
-- Name: key_shares; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.key_shares (
    wallet_id uuid NOT NULL,
    role text NOT NULL,
    kek_id text NOT NULL,
    iv bytea NOT NULL,
    ciphertext bytea NOT NULL,
    created_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT key_shares_role_check CHECK ((role = ANY (ARRAY['user'::text, 'service'::text])))
);


--
-- Name: nonce_counters; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.nonce_counters (
    wallet_id uuid NOT NULL,
    chain_id text NOT NULL,
    next_nonce integer NOT NULL
);


--
-- Name: nonce_reservations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.nonce_reservations (
    wallet_id uuid NOT NULL,
    chain_id text NOT NULL,
    nonce integer NOT NULL,
    reservation_id uuid,
    expires_at timestamp(3) with time zone
);


--
-- Name: partners; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.partners (
    id uuid NOT NULL,
    name text NOT NULL,
    created_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: permissions_extensions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.permissions_extensions (
    project_id uuid NOT NULL,
    environment text NOT NULL,
    enabled boolean NOT NULL,
    updated_at timestamp(3) with time zone NOT NULL,
    updated_by_type text NOT NULL,
    updated_by_id uuid,
    CONSTRAINT permissions_extensions_environment_check CHECK ((environment = ANY (ARRAY['development'::text, 'production'::text]))),
    CONSTRAINT permissions_extensions_updated_by_type_check CHECK ((updated_by_type = ANY (ARRAY['api_key'::text, 'staff'::text, 'operator'::text])))
);


--
-- Name: policies; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.policies (
    id uuid NOT NULL,
    project_id uuid NOT NULL,
    environment text NOT NULL,
    policy_id text NOT NULL,
    latest_version integer NOT NULL,
    created_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT policies_environment_check CHECK ((environment = ANY (ARRAY['development'::text, 'production'::text]))),
    CONSTRAINT policies_latest_version_check CHECK ((latest_version >= 1))
);


--
-- Name: policy_spend_meters; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.policy_spend_meters (
    project_id uuid NOT NULL,
    environment text NOT NULL,
    api_key_id uuid NOT NULL,
    wallet_id uuid NOT NULL,
    network text NOT NULL,
    asset text NOT NULL,
    window_ms bigint NOT NULL,
    window_start timestamp(3) with time zone NOT NULL,
    updated_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    used numeric(78,0) DEFAULT 0 NOT NULL,
    CONSTRAINT policy_spend_meters_environment_check CHECK ((environment = ANY (ARRAY['development'::text, 'production'::text]))),
    CONSTRAINT policy_spend_meters_used_check CHECK ((used >= (0)::numeric)),
    CONSTRAINT policy_spend_meters_window_ms_check CHECK ((window_ms > 0))
);


--
-- Name: policy_spend_reservations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.policy_spend_reservations (
    id uuid NOT NULL,
    project_id uuid NOT NULL,
    environment text NOT NULL,
    status text NOT NULL,
    charges jsonb NOT NULL,
    created_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    settled_at timestamp(3) with time zone,
    CONSTRAINT policy_spend_reservations_environment_check CHECK ((environment = ANY (ARRAY['development'::text, 'production'::text]))),
    CONSTRAINT policy_spend_reservations_settled_check CHECK (((status = 'reserved'::text) = (settled_at IS NULL))),
    CONSTRAINT policy_spend_reservations_status_check CHECK ((status = ANY (ARRAY['reserved'::text, 'spent'::text, 'released'::text])))
);


--
-- Name: policy_versions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.policy_versions (
    policy_key uuid NOT NULL,
    version integer NOT NULL,
    document jsonb NOT NULL,
    status text NOT NULL,
    wallet_type text NOT NULL,
    effective_from timestamp(3) with time zone,
    effective_until timestamp(3) with time zone,
    created_at timestamp(3) with time zone NOT NULL,
    created_by_type text NOT NULL,
    created_by_id uuid,
    deactivated_at timestamp(3) with time zone,
    deactivated_by_type text,
    deactivated_by_id uuid,
    replaced_by integer,
    CONSTRAINT policy_versions_created_by_type_check CHECK ((created_by_type = ANY (ARRAY['api_key'::text, 'staff'::text, 'operator'::text]))),
    CONSTRAINT policy_versions_deactivated_by_type_check CHECK ((deactivated_by_type = ANY (ARRAY['api_key'::text, 'staff'::text, 'operator'::text]))),
    CONSTRAINT policy_versions_deactivated_check CHECK (((status = 'active'::text) = (deactivated_at IS NULL))),
    CONSTRAINT policy_versions_status_check CHECK ((status = ANY (ARRAY['active'::text, 'inactive'::text]))),
    CONSTRAINT policy_versions_wallet_type_check CHECK ((wallet_type = ANY (ARRAY['EVM'::text, 'COSMOS'::text, 'SOLANA'::text, 'STELLAR'::text, 'SUI'::text])))
);


--
-- Name: projects; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.projects (
    id uuid NOT NULL,
    partner_id uuid NOT NULL,
    name text NOT NULL,
    created_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: rate_limit_counters; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.rate_limit_counters (
    api_key_id uuid NOT NULL,
    window_start timestamp(3) with time zone NOT NULL,
    count integer NOT NULL
);


--
-- Name: request_log; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.request_log (
    id bigint NOT NULL,
    project_id uuid,
    request_id uuid NOT NULL,
    method text NOT NULL,
    route text NOT NULL,
    status integer NOT NULL,
    code text,
    api_key_id uuid,
    wallet_id uuid,
    transaction_id uuid,
    latency_ms double precision NOT NULL,
    denied_by jsonb,
    at timestamp(3) with time zone NOT NULL,
    case_id uuid
);


--
-- Name: request_log_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.request_log_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: request_log_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.request_log_id_seq OWNED BY public.request_log.id;


--
-- Name: service_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.service_keys (
    purpose text NOT NULL,
    chain_id integer NOT NULL,
    address text NOT NULL,
    kek_id text NOT NULL,
    iv bytea NOT NULL,
    encrypted_private_key bytea NOT NULL,
    created_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT service_keys_chain_id_check CHECK ((chain_id > 0)),
    CONSTRAINT service_keys_purpose_check CHECK ((purpose = ANY (ARRAY['sponsor'::text, 'relayer'::text])))
);


--
-- Name: sponsorship_budget; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sponsorship_budget (
    project_id uuid NOT NULL,
    environment text NOT NULL,
    day date NOT NULL,
    used numeric(78,0) DEFAULT 0 NOT NULL,
    CONSTRAINT sponsorship_budget_used_check CHECK ((used >= (0)::numeric))
);


--
-- Name: sponsorship_budget_reservations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sponsorship_budget_reservations (
    operation_id text NOT NULL,
    project_id uuid NOT NULL,
    environment text NOT NULL,
    day date NOT NULL,
    amount numeric(78,0) NOT NULL,
    status text NOT NULL,
    created_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    settled_at timestamp(3) with time zone,
    CONSTRAINT sponsorship_budget_reservations_amount_check CHECK ((amount >= (0)::numeric)),
    CONSTRAINT sponsorship_budget_reservations_status_check CHECK ((status = ANY (ARRAY['reserved'::text, 'settled'::text, 'released'::text])))
);


--
-- Name: sponsorship_settings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sponsorship_settings (
    project_id uuid NOT NULL,
    environment text NOT NULL,
    enabled boolean NOT NULL,
    paused boolean NOT NULL,
    gas_cap_wei numeric(78,0) NOT NULL,
    daily_budget_wei numeric(78,0) NOT NULL,
    updated_at timestamp(3) with time zone NOT NULL,
    updated_by_type text NOT NULL,
    updated_by_id uuid,
    CONSTRAINT sponsorship_settings_amounts_check CHECK (((gas_cap_wei > (0)::numeric) AND (daily_budget_wei > (0)::numeric))),
    CONSTRAINT sponsorship_settings_environment_check CHECK ((environment = ANY (ARRAY['development'::text, 'production'::text])))
);


--
-- Name: staff_accounts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.staff_accounts (
    id uuid NOT NULL,
    partner_id uuid NOT NULL,
    email text NOT NULL,
    role text NOT NULL,
    password_hash text NOT NULL,
    created_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    disabled_at timestamp(3) with time zone,
    CONSTRAINT staff_accounts_role_check CHECK ((role = ANY (ARRAY['owner'::text, 'developer'::text, 'support'::text])))
);


--
-- Name: staff_sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.staff_sessions (
    id uuid NOT NULL,
    staff_id uuid NOT NULL,
    token_hash text NOT NULL,
    created_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    expires_at timestamp(3) with time zone NOT NULL,
    revoked_at timestamp(3) with time zone
);


--
-- Name: transaction_attempts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.transaction_attempts (
    id uuid NOT NULL,
    record_id uuid NOT NULL,
    number integer NOT NULL,
    hash text NOT NULL,
    signed_transaction text NOT NULL,
    max_fee_per_gas text,
    max_priority_fee_per_gas text,
    sent_block bigint NOT NULL,
    sent_at timestamp(3) with time zone NOT NULL,
    outcome text NOT NULL,
    reason text NOT NULL,
    created_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    last_valid_block_height bigint,
    recent_blockhash text,
    CONSTRAINT transaction_attempts_kind_check CHECK ((((max_fee_per_gas IS NOT NULL) AND (max_priority_fee_per_gas IS NOT NULL) AND (recent_blockhash IS NULL) AND (last_valid_block_height IS NULL)) OR ((recent_blockhash IS NOT NULL) AND (last_valid_block_height IS NOT NULL) AND (max_fee_per_gas IS NULL) AND (max_priority_fee_per_gas IS NULL)))),
    CONSTRAINT transaction_attempts_number_check CHECK ((number >= 2)),
    CONSTRAINT transaction_attempts_outcome_check CHECK ((outcome = ANY (ARRAY['unknown'::text, 'pending'::text, 'included'::text, 'lost'::text])))
);


--
-- Name: transaction_records; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.transaction_records (
    id uuid NOT NULL,
    project_id uuid NOT NULL,
    partner_id uuid NOT NULL,
    wallet_id uuid NOT NULL,
    wallet_type text NOT NULL,
    intent_kind text NOT NULL,
    status text NOT NULL,
    chain_id text,
    network text,
    from_address text NOT NULL,
    "to" text,
    value text,
    token_address text,
    nonce integer,
    hash text,
    recent_blockhash text,
    last_valid_block_height bigint,
    nonce_account text,
    block_number bigint,
    block_hash text,
    failure_stage text,
    failure_code text,
    failure_message text,
    monitoring jsonb,
    cancellation_of uuid,
    request_id text,
    api_key_id uuid,
    submitted_at timestamp(3) with time zone,
    resolved_at timestamp(3) with time zone,
    evidence_at timestamp(3) with time zone,
    next_check_at timestamp(3) with time zone,
    lease_owner text,
    lease_until timestamp(3) with time zone,
    check_count integer DEFAULT 0 NOT NULL,
    consecutive_errors integer DEFAULT 0 NOT NULL,
    created_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp(3) with time zone NOT NULL,
    evidence_block bigint,
    idempotency_key text,
    signed_transaction text,
    service_initiated text,
    actual_gas_cost text,
    execution_mode text DEFAULT 'legacy'::text NOT NULL,
    review_id text,
    stage text,
    user_operation text,
    user_operation_hash text,
    auto_retry boolean,
    auto_retry_max_fee_per_gas text,
    auto_retry_reason text,
    CONSTRAINT transaction_records_auto_retry_ceiling_check CHECK (((auto_retry IS NOT TRUE) OR (auto_retry_max_fee_per_gas IS NOT NULL) OR (wallet_type = 'SOLANA'::text))),
    CONSTRAINT transaction_records_execution_mode_check CHECK ((execution_mode = ANY (ARRAY['legacy'::text, 'sponsored'::text]))),
    CONSTRAINT transaction_records_failure_stage_check CHECK ((failure_stage = ANY (ARRAY['mpc_sign'::text, 'signature_apply'::text, 'signer_verify'::text, 'broadcast'::text, 'monitor_timeout'::text]))),
    CONSTRAINT transaction_records_intent_kind_check CHECK ((intent_kind = ANY (ARRAY['transfer'::text, 'sign_transaction'::text, 'yield'::text]))),
    CONSTRAINT transaction_records_sponsored_fields_check CHECK (((execution_mode = 'sponsored'::text) OR ((stage IS NULL) AND (review_id IS NULL) AND (user_operation_hash IS NULL) AND (actual_gas_cost IS NULL) AND (user_operation IS NULL)))),
    CONSTRAINT transaction_records_stage_check CHECK ((stage = ANY (ARRAY['accepted'::text, 'requires_action'::text, 'signed'::text, 'submitted'::text, 'submission_unknown'::text, 'included'::text, 'delivery_unverified'::text]))),
    CONSTRAINT transaction_records_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'submitted'::text, 'confirmed'::text, 'reverted'::text, 'failed'::text]))),
    CONSTRAINT transaction_records_wallet_type_check CHECK ((wallet_type = ANY (ARRAY['EVM'::text, 'COSMOS'::text, 'SOLANA'::text, 'STELLAR'::text, 'SUI'::text])))
);


--
-- Name: user_parameter_revisions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.user_parameter_revisions (
    id uuid NOT NULL,
    project_id uuid NOT NULL,
    environment text NOT NULL,
    user_id uuid NOT NULL,
    wallet_id uuid NOT NULL,
    policy_id text NOT NULL,
    revision integer NOT NULL,
    policy_version integer NOT NULL,
    "values" jsonb NOT NULL,
    created_at timestamp(3) with time zone NOT NULL,
    CONSTRAINT user_parameter_revisions_environment_check CHECK ((environment = ANY (ARRAY['development'::text, 'production'::text])))
);


--
-- Name: user_parameter_sets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.user_parameter_sets (
    project_id uuid NOT NULL,
    environment text NOT NULL,
    user_id uuid NOT NULL,
    wallet_id uuid NOT NULL,
    policy_id text NOT NULL,
    revision integer NOT NULL,
    "values" jsonb NOT NULL,
    updated_at timestamp(3) with time zone NOT NULL,
    CONSTRAINT user_parameter_sets_environment_check CHECK ((environment = ANY (ARRAY['development'::text, 'production'::text]))),
    CONSTRAINT user_parameter_sets_revision_check CHECK ((revision >= 1))
);


--
-- Name: users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.users (
    id uuid NOT NULL,
    project_id uuid NOT NULL,
    identifier text NOT NULL,
    identifier_type text NOT NULL,
    created_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT users_identifier_type_check CHECK ((identifier_type = ANY (ARRAY['EMAIL'::text, 'PHONE'::text, 'CUSTOM_ID'::text, 'GUEST_ID'::text, 'DISCORD'::text, 'TWITTER'::text, 'TELEGRAM'::text, 'FARCASTER'::text])))
);


--
-- Name: wallet_authorization_scope_revisions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.wallet_authorization_scope_revisions (
    id uuid NOT NULL,
    project_id uuid NOT NULL,
    environment text NOT NULL,
    wallet_id uuid NOT NULL,
    revision integer NOT NULL,
    scope_id text,
    actor_type text NOT NULL,
    actor_id uuid,
    request_id text,
    created_at timestamp(3) with time zone NOT NULL,
    CONSTRAINT wallet_authorization_scope_revisions_actor_type_check CHECK ((actor_type = ANY (ARRAY['api_key'::text, 'staff'::text, 'operator'::text]))),
    CONSTRAINT wallet_authorization_scope_revisions_environment_check CHECK ((environment = ANY (ARRAY['development'::text, 'production'::text]))),
    CONSTRAINT wallet_authorization_scope_revisions_revision_check CHECK ((revision >= 1))
);


--
-- Name: wallet_authorization_scopes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.wallet_authorization_scopes (
    project_id uuid NOT NULL,
    environment text NOT NULL,
    wallet_id uuid NOT NULL,
    scope_id text,
    revision integer NOT NULL,
    updated_at timestamp(3) with time zone NOT NULL,
    CONSTRAINT wallet_authorization_scopes_environment_check CHECK ((environment = ANY (ARRAY['development'::text, 'production'::text]))),
    CONSTRAINT wallet_authorization_scopes_revision_check CHECK ((revision >= 1)),
    CONSTRAINT wallet_authorization_scopes_scope_id_check CHECK ((scope_id ~ '^[A-Za-z0-9._:-]{1,128}$'::text))
);


--
-- Name: wallets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.wallets (
    id uuid NOT NULL,
    project_id uuid NOT NULL,
    type text NOT NULL,
    scheme text NOT NULL,
    address text NOT NULL,
    public_key text NOT NULL,
    status text NOT NULL,
    user_identifier text NOT NULL,
    user_identifier_type text NOT NULL,
    cosmos_prefix text,
    created_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp(3) with time zone NOT NULL,
    claimed_at timestamp(3) with time zone,
    claimed_by_user_id uuid,
    custody text DEFAULT 'api_key'::text NOT NULL,
    migrated_at timestamp(3) with time zone,
    CONSTRAINT wallets_custody_check CHECK ((custody = ANY (ARRAY['api_key'::text, 'client'::text]))),
    CONSTRAINT wallets_scheme_check CHECK ((scheme = ANY (ARRAY['DKLS'::text, 'ED25519'::text]))),
    CONSTRAINT wallets_status_check CHECK ((status = ANY (ARRAY['creating'::text, 'ready'::text]))),
    CONSTRAINT wallets_type_check CHECK ((type = ANY (ARRAY['EVM'::text, 'COSMOS'::text, 'SOLANA'::text, 'STELLAR'::text, 'SUI'::text]))),
    CONSTRAINT wallets_user_identifier_type_check CHECK ((user_identifier_type = ANY (ARRAY['EMAIL'::text, 'PHONE'::text, 'CUSTOM_ID'::text, 'GUEST_ID'::text, 'DISCORD'::text, 'TWITTER'::text, 'TELEGRAM'::text, 'FARCASTER'::text])))
);


--
-- Name: webhook_attempts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_attempts (
    id bigint NOT NULL,
    delivery_id bigint NOT NULL,
    attempted_at timestamp(3) with time zone NOT NULL,
    status_code integer,
    latency_ms integer NOT NULL,
    error text
);


--
-- Name: webhook_attempts_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.webhook_attempts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: webhook_attempts_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.webhook_attempts_id_seq OWNED BY public.webhook_attempts.id;


--
-- Name: webhook_deliveries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_deliveries (
    id bigint NOT NULL,
    event_id text NOT NULL,
    endpoint_id uuid NOT NULL,
    event_seq bigint NOT NULL,
    status text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp(3) with time zone,
    last_status_code integer,
    last_error text,
    delivered_at timestamp(3) with time zone,
    created_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'delivered'::text, 'failed'::text])))
);


--
-- Name: webhook_deliveries_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.webhook_deliveries_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: webhook_deliveries_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.webhook_deliveries_id_seq OWNED BY public.webhook_deliveries.id;


--
-- Name: webhook_endpoints; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_endpoints (
    id uuid NOT NULL,
    api_key_id uuid NOT NULL,
    project_id uuid NOT NULL,
    url text NOT NULL,
    enabled boolean NOT NULL,
    event_types text[],
    secret_kek_id text NOT NULL,
    secret bytea NOT NULL,
    previous_secret_kek_id text,
    previous_secret bytea,
    previous_secret_expires_at timestamp(3) with time zone,
    failing_since timestamp(3) with time zone,
    disabled_at timestamp(3) with time zone,
    disabled_reason text,
    lease_owner text,
    lease_until timestamp(3) with time zone,
    created_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: worker_leases; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.worker_leases (
    name text NOT NULL,
    owner text NOT NULL,
    lease_until timestamp(3) with time zone NOT NULL
);


--
-- Name: yield_operation_steps; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.yield_operation_steps (
    operation_id uuid NOT NULL,
    phase text NOT NULL,
    transaction_id uuid NOT NULL,
    created_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT yield_operation_steps_phase_check CHECK ((phase = ANY (ARRAY['approval'::text, 'action'::text])))
);


--
-- Name: yield_operations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.yield_operations (
    id uuid NOT NULL,
    project_id uuid NOT NULL,
    partner_id uuid NOT NULL,
    wallet_id uuid NOT NULL,
    api_key_id uuid,
    environment text NOT NULL,
    request_id text,
    idempotency_key text NOT NULL,
    chain_id integer NOT NULL,
    market_id text NOT NULL,
    source text NOT NULL,
    action text NOT NULL,
    amount text NOT NULL,
    status text NOT NULL,
    error_code text,
    error_message text,
    review_id text,
    plan jsonb DEFAULT '{}'::jsonb NOT NULL,
    next_run_at timestamp(3) with time zone,
    lease_owner text,
    lease_until timestamp(3) with time zone,
    consecutive_errors integer DEFAULT 0 NOT NULL,
    resolved_at timestamp(3) with time zone,
    created_at timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp(3) with time zone NOT NULL,
    CONSTRAINT yield_operations_action_check CHECK ((action = ANY (ARRAY['deposit'::text, 'withdraw'::text]))),
    CONSTRAINT yield_operations_environment_check CHECK ((environment = ANY (ARRAY['development'::text, 'production'::text]))),
    CONSTRAINT yield_operations_source_check CHECK ((source = ANY (ARRAY['poolprov-v3'::text, 'vaultprov-v2'::text]))),
    CONSTRAINT yield_operations_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'submitted'::text, 'confirmed'::text, 'failed'::text, 'requires_action'::text, 'cancelled'::text])))
);


--
-- Name: audit_log id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_log ALTER COLUMN id SET DEFAULT nextval('public.audit_log_id_seq'::regclass);


--
-- Name: events seq; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events ALTER COLUMN seq SET DEFAULT nextval('public.events_seq_seq'::regclass);


--
-- Name: request_log id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.request_log ALTER COLUMN id SET DEFAULT nextval('public.request_log_id_seq'::regclass);


--
-- Name: webhook_attempts id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_attempts ALTER COLUMN id SET DEFAULT nextval('public.webhook_attempts_id_seq'::regclass);


--
-- Name: webhook_deliveries id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries ALTER COLUMN id SET DEFAULT nextval('public.webhook_deliveries_id_seq'::regclass);


--
-- Data for Name: _prisma_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public._prisma_migrations VALUES ('747b7f1e-9b13-45c7-b3da-71fe8160fe00', '08159a3be909ecdda1e56acefe1a509ac7a7815ece48ecce6e61fabcc907904c', '2026-12-02 01:11:01.296198+00', '20261122000000_init', NULL, NULL, '2026-12-02 01:11:01.18+00', 1);
INSERT INTO public._prisma_migrations VALUES ('ea381ffb-cc3a-4849-b710-d9a3a8f203ed', '9ba6655576459088ef692feb42b7c6784d446f32b28430074d85d73357ed275e', '2026-12-02 01:11:01.425149+00', '20261122052120_signing_claims_migration', NULL, NULL, '2026-12-02 01:11:01.299+00', 1);
INSERT INTO public._prisma_migrations VALUES ('ffffe587-36fb-4efa-9db7-f738e6129294', 'f1f38ab170dbbb2548487830c6badae1b421710e0983d1279e5bcef3214c7561', '2026-12-02 01:11:01.450705+00', '20261123093704_transaction_records', NULL, NULL, '2026-12-02 01:11:01.427+00', 1);
INSERT INTO public._prisma_migrations VALUES ('880541dc-f381-4b50-be0c-3b71ccbf4cdc', '8b4a7e9df00de70a42419236f7f5bb88db4726e3dc5297bf6dd31eb08f8a8d40', '2026-12-02 01:11:01.48315+00', '20261123101107_webhooks', NULL, NULL, '2026-12-02 01:11:01.453+00', 1);
INSERT INTO public._prisma_migrations VALUES ('79bdd819-3196-4bcd-90e6-b1292da4bb8d', '863a701de6c78574254591a118de9004ab2c4552c2b76050d0dc3de7388aa5ad', '2026-12-02 01:11:01.496085+00', '20261123121507_staff_accounts', NULL, NULL, '2026-12-02 01:11:01.485+00', 1);
INSERT INTO public._prisma_migrations VALUES ('3789660e-5b78-4128-8bb1-e2975ff54718', 'dfa2ad8705f3b223b386777d589f9734c4b883455d5a6ef674f120128db442b8', '2026-12-02 01:11:01.500407+00', '20261123121755_monitor_evidence_position', NULL, NULL, '2026-12-02 01:11:01.497+00', 1);
INSERT INTO public._prisma_migrations VALUES ('693d8c83-9124-453f-9b4f-31a87861703a', '8b588916af5aecdf33873ebd2691a2718323c6a470161f4667f0d7dc5892cd84', '2026-12-02 01:11:01.503625+00', '20261123132429_project_history_index', NULL, NULL, '2026-12-02 01:11:01.501+00', 1);
INSERT INTO public._prisma_migrations VALUES ('2460bcb1-badd-4653-b4d5-44598e8adb1c', 'fb27107fb9844bef7db00881a18bb4279c4a90dded7645c613781ee14e7e043f', '2026-12-02 01:11:01.516061+00', '20261124185144_reliability', NULL, NULL, '2026-12-02 01:11:01.505+00', 1);
INSERT INTO public._prisma_migrations VALUES ('def3771d-c4c7-445d-98bf-752e9b9c50fa', '934680dccffbc1662ce3c77a0a244ffad9d8ce24067171ae670a404604f936fe', '2026-12-02 01:11:01.521038+00', '20261124190016_events_transaction_id', NULL, NULL, '2026-12-02 01:11:01.517+00', 1);
INSERT INTO public._prisma_migrations VALUES ('57505839-7345-4c39-8027-31d18a45d131', 'c236a59982cf26608b0c9154faea12e259cf004803eda8c28449f37a78d5d119', '2026-12-02 01:11:01.524328+00', '20261124191500_revoked_key_webhooks', NULL, NULL, '2026-12-02 01:11:01.522+00', 1);
INSERT INTO public._prisma_migrations VALUES ('250cdb2a-3092-433e-9f57-ceae0d8a0b62', '87a7632bcb8017ac0e23c043850706a9a3a4d0db0ec3e1e70282e8903ebeddec', '2026-12-02 01:11:01.528764+00', '20261124194010_broadcast_idempotency', NULL, NULL, '2026-12-02 01:11:01.526+00', 1);
INSERT INTO public._prisma_migrations VALUES ('6a019bc0-d806-4b77-ad43-8959c0f908cd', '6840df537d1a28cb9ef7aaecb0ce9905f909d44d1c18494f142dcbd273f90264', '2026-12-02 01:11:01.546476+00', '20261124202721_policies', NULL, NULL, '2026-12-02 01:11:01.53+00', 1);
INSERT INTO public._prisma_migrations VALUES ('6a2246f4-e8de-4c6b-8b7c-171dc06423ba', 'a3b515a336e96233aab4d7bf27e21d2cf53a41c7308a4890acc1cc36eaf0b2fd', '2026-12-02 01:11:01.557821+00', '20261124213856_policy_spend_meters', NULL, NULL, '2026-12-02 01:11:01.548+00', 1);
INSERT INTO public._prisma_migrations VALUES ('de0a3338-4bd4-417d-8ac7-c3ecde8b9319', '7cb9e0d93acb2e5a40d091c4f565f83957718b836df8d832ee4b42af5af73b1c', '2026-12-02 01:11:01.561602+00', '20261125010000_policy_spend_reserve_function', NULL, NULL, '2026-12-02 01:11:01.558+00', 1);
INSERT INTO public._prisma_migrations VALUES ('f615db8f-b2bd-4127-a198-212e1c221b28', 'be3612baa4d8c1c81cf7737f28089b23dbfe7e3c385cfda893d8bceac9b636da', '2026-12-02 01:11:01.577595+00', '20261125034956_yield_operations', NULL, NULL, '2026-12-02 01:11:01.562+00', 1);
INSERT INTO public._prisma_migrations VALUES ('531fd3f7-dea2-4e3d-8d2a-a8334bc818e2', '3efc3160c1f94917fb8f7f6db91827d1e168f81cdca54f60ad8cf69ce9edaeaf', '2026-12-02 01:11:01.602363+00', '20261125044009_authorization_scopes', NULL, NULL, '2026-12-02 01:11:01.578+00', 1);
INSERT INTO public._prisma_migrations VALUES ('79176ab1-7981-46f0-8625-d2b3c69a1a7b', 'a679b7ca86431a984998ea33c532895a68fc9447f3900da7b0815932375beb5d', '2026-12-02 01:11:01.620493+00', '20261125065539_approval_cases', NULL, NULL, '2026-12-02 01:11:01.604+00', 1);
INSERT INTO public._prisma_migrations VALUES ('c877f38f-4a64-4af6-9eeb-93fab04c7568', 'e9da5ebee94cdcac5d8e097d5dbe9ae11d6c2e94089ecded749ffef6c802648e', '2026-12-02 01:11:01.62944+00', '20261125065553_approval_configurations', NULL, NULL, '2026-12-02 01:11:01.621+00', 1);
INSERT INTO public._prisma_migrations VALUES ('3cdef07a-0af9-43d7-ae12-773694b948f4', '5bc05db29dbcc917048c191706520ca063bf9ff5e93e692306e28da639ef303c', '2026-12-02 01:11:01.632846+00', '20261125094145_partner_reviews', NULL, NULL, '2026-12-02 01:11:01.63+00', 1);
INSERT INTO public._prisma_migrations VALUES ('2a6f0b21-9626-41b3-842d-3f0149b9c3aa', 'ae3b25119d4d4653d26305d6c68b090595a272888c8241c8babe9afdf158e2b0', '2026-12-02 01:11:01.645295+00', '20261125094513_delegation_consents', NULL, NULL, '2026-12-02 01:11:01.635+00', 1);
INSERT INTO public._prisma_migrations VALUES ('390f7f41-aee0-4179-8d3f-c42bf3431a00', 'b71d212c9bbeb74c8ffc3ab659ef60f77dbe23da13a46318135b778bc63e5d77', '2026-12-02 01:11:01.649547+00', '20261125095740_approval_case_preparations', NULL, NULL, '2026-12-02 01:11:01.646+00', 1);
INSERT INTO public._prisma_migrations VALUES ('547e701a-0de0-4d83-8cfe-4e5f4a508efb', '863ad03581567aaa2f5c902b1c051ebdd9891bf98b9d3a4ff37d6f2b1b7434df', '2026-12-02 01:11:01.651323+00', '20261125125703_approval_case_nonce_holds', NULL, NULL, '2026-12-02 01:11:01.65+00', 1);
INSERT INTO public._prisma_migrations VALUES ('ff848ba1-9295-4d3b-b0d1-60e10069dca4', '5198842a43be1e6fe85d8c8201633ba8d3870ea535224698af1dd42d06e43036', '2026-12-02 01:11:01.653546+00', '20261125131209_approval_case_consumed_request', NULL, NULL, '2026-12-02 01:11:01.652+00', 1);
INSERT INTO public._prisma_migrations VALUES ('c925a1ed-5b01-4e4e-a26e-9db0afd3b03b', '1d8968e9c6c6bc2b733b2c9ac8dd4e1f4b78f3d268388e6f3686577773e03f0d', '2026-12-02 01:11:01.660195+00', '20261127032911_nonce_reservations', NULL, NULL, '2026-12-02 01:11:01.654+00', 1);
INSERT INTO public._prisma_migrations VALUES ('943bf6f1-2123-472d-a59e-0716ae8ac887', 'd6652fe08ca81d4c0bd3b2fcd489faaee8e4b9665ca4d94a24d0b8bd37df7599', '2026-12-02 01:11:01.66218+00', '20261127034636_service_initiated_records', NULL, NULL, '2026-12-02 01:11:01.661+00', 1);
INSERT INTO public._prisma_migrations VALUES ('62ac8158-6947-4d42-a492-ef4743a84e27', 'fa303c4c9ca426ab9bacc4c329f5accacdb36e8954d8d09862cbe612f0752d15', '2026-12-02 01:11:01.664317+00', '20261127044542_enclave_key_singleton', NULL, NULL, '2026-12-02 01:11:01.662+00', 1);
INSERT INTO public._prisma_migrations VALUES ('51843043-654a-45a6-8c74-71db695b9eab', 'ca320e724edcbc6e3c8a2b20b67deca329af4bef6d9ddaa3b88096be9720b646', '2026-12-02 01:11:01.670574+00', '20261127065820_request_log', NULL, NULL, '2026-12-02 01:11:01.664+00', 1);
INSERT INTO public._prisma_migrations VALUES ('cf7652ce-9a81-4bcb-8b48-2559a05ab797', '3f53b7ec551489ecdbd4cdf96ba17bdc9e7faff191129dac84b7e4d8ddc2baf0', '2026-12-02 01:11:01.675214+00', '20261127070613_search_indexes', NULL, NULL, '2026-12-02 01:11:01.671+00', 1);
INSERT INTO public._prisma_migrations VALUES ('b355eff0-26f2-40a0-a369-a7c63b6b2f03', 'fcdf574782fefc0584f0e6a57739dfa382a97b456038337547f96bfc174b967f', '2026-12-02 01:11:01.679336+00', '20261127070645_request_log_case_id', NULL, NULL, '2026-12-02 01:11:01.676+00', 1);
INSERT INTO public._prisma_migrations VALUES ('480e5ff6-85d1-48e0-814b-2f32ea5c7ea7', 'e16e25cf8c00683cf52a71a4748bc9ad3cacbdde2bf6108f74171ce8131210c2', '2026-12-02 01:11:01.682147+00', '20261127071218_console_support_filters', NULL, NULL, '2026-12-02 01:11:01.68+00', 1);
INSERT INTO public._prisma_migrations VALUES ('37aea4e9-24d6-413a-a1ba-ff3c0742b361', '73cd7a85b17fed3134e542f96f7cb7d97b8e94bcfd9afd30776b4e22e69b45ee', '2026-12-02 01:11:01.695625+00', '20261127133123_sponsorship_settings_and_service_keys', NULL, NULL, '2026-12-02 01:11:01.685+00', 1);
INSERT INTO public._prisma_migrations VALUES ('6a437816-c632-4661-a926-4ae2acd33738', '681f9e52bc0203c9aaa266e17efea984aee544f9e60744d4fb2249af7f1c6cfc', '2026-12-02 01:11:01.70383+00', '20261127140738_sponsored_transaction_fields', NULL, NULL, '2026-12-02 01:11:01.696+00', 1);
INSERT INTO public._prisma_migrations VALUES ('38b845ef-1cf6-4b27-8eca-04a414b83847', 'c2720afc88e95172d2f30c517098c816bbd5387a32527e12c996257134f5cbe8', '2026-12-02 01:11:01.711279+00', '20261127173746_transaction_attempts', NULL, NULL, '2026-12-02 01:11:01.704+00', 1);
INSERT INTO public._prisma_migrations VALUES ('8d5dc37a-7c26-477d-8a7d-e79047649ee7', 'a39e1850efd1330309cbc4ba262c2a90be2373c58643bde235afbddf8e0acae2', '2026-12-02 01:11:01.715706+00', '20261127211340_project_auto_retry_settings', NULL, NULL, '2026-12-02 01:11:01.712+00', 1);
INSERT INTO public._prisma_migrations VALUES ('e9db11e5-4835-49a4-a6a6-3f8e193cd0e9', '2bd9e042b2a4738f4b164cfc27cb1db283cac77024a03118634c6f8ef3fe4bce', '2026-12-02 01:11:01.717126+00', '20261127213000_sponsorship_budget_raise', NULL, NULL, '2026-12-02 01:11:01.716+00', 1);
INSERT INTO public._prisma_migrations VALUES ('fea53ac6-3f9a-4340-9486-d56525aeea85', 'abb684d2c8679bedcfcf29a17251926d02a291ac1e887e72937982a4e85e5fa7', '2026-12-02 01:11:01.71925+00', '20261127223000_solana_attempts', NULL, NULL, '2026-12-02 01:11:01.717+00', 1);


--
-- Data for Name: api_keys; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.api_keys VALUES ('4b60ec7f-c48f-469e-a76e-9077d549fea3', '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', 'development', 'growth', NULL, '{}', 'sk_test_0LPa…', '780a63a7fd543c6a26e127377bada6088191b981ab30e6794b45916ee062d289', '2026-12-02 01:11:07.45+00', NULL);


--
-- Data for Name: approval_case_decisions; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: approval_case_preparations; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: approval_cases; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: approval_configuration_revisions; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: approval_configurations; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: audit_log; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.audit_log VALUES (1, '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', '4b60ec7f-c48f-469e-a76e-9077d549fea3', NULL, NULL, 'api_key.create', '{"plan": "growth", "environment": "development"}', '2026-12-02 01:11:07.504+00');
INSERT INTO public.audit_log VALUES (2, '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', '4b60ec7f-c48f-469e-a76e-9077d549fea3', '5ef31f0e-0c9a-4eb8-b7b7-2a92207dcf4c', '8074b5d8-b72e-4b24-8d81-c5f26f81cd99', 'wallet.create', '{"type": "EVM", "scheme": "DKLS"}', '2026-12-02 01:11:08.066+00');
INSERT INTO public.audit_log VALUES (3, '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', '4b60ec7f-c48f-469e-a76e-9077d549fea3', '5ef31f0e-0c9a-4eb8-b7b7-2a92207dcf4c', 'a317f7f5-4937-49c4-9192-7adfc53c11ef', 'wallet.sign.sign-message', '{"digest": "d052ccb89818c2740f6fefa2e42ca440421ec6ebe6b2a96fbc46da27af06d024", "kekIds": ["file-service-a6ed68dd", "file-user-94e0591e"], "chainId": null}', '2026-12-02 01:11:08.641+00');
INSERT INTO public.audit_log VALUES (4, '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', '4b60ec7f-c48f-469e-a76e-9077d549fea3', '73a9d351-cadc-4b54-8052-4f36a6741460', 'f9d56122-4058-4706-bb10-06e0faaeecd4', 'wallet.create', '{"type": "COSMOS", "scheme": "DKLS"}', '2026-12-02 01:11:08.761+00');
INSERT INTO public.audit_log VALUES (5, '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', '4b60ec7f-c48f-469e-a76e-9077d549fea3', '73a9d351-cadc-4b54-8052-4f36a6741460', '1254cd82-9561-44b1-b0e7-025e51b25796', 'wallet.sign.sign-message', '{"digest": "db7a35efa410875a50a98a51541b26a957ea6441aa5d8cad8af668506e64cff3", "kekIds": ["file-service-a6ed68dd", "file-user-94e0591e"], "chainId": null}', '2026-12-02 01:11:08.881+00');
INSERT INTO public.audit_log VALUES (6, '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', '4b60ec7f-c48f-469e-a76e-9077d549fea3', '1b6bc160-5428-48c3-bc0a-d1236501f3d6', 'a6848971-2aec-4a77-922a-91cb1136dcf1', 'wallet.create', '{"type": "SOLANA", "scheme": "ED25519"}', '2026-12-02 01:11:08.968+00');
INSERT INTO public.audit_log VALUES (7, '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', '4b60ec7f-c48f-469e-a76e-9077d549fea3', '1b6bc160-5428-48c3-bc0a-d1236501f3d6', '0a386487-0264-4891-9534-5785d75400c7', 'wallet.sign.sign-message', '{"digest": "4b55d1b10bed5140ff289a28d6a955ccd40c9c62210686bb18ae42b6cb90d956", "kekIds": ["file-service-a6ed68dd", "file-user-94e0591e"], "chainId": null}', '2026-12-02 01:11:09.042+00');
INSERT INTO public.audit_log VALUES (8, '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', '4b60ec7f-c48f-469e-a76e-9077d549fea3', 'f56d88e8-efe7-4b10-949e-6d175a6ea75c', '74c03674-0912-4e09-a603-63035092c273', 'wallet.create', '{"type": "STELLAR", "scheme": "ED25519"}', '2026-12-02 01:11:09.084+00');
INSERT INTO public.audit_log VALUES (9, '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', '4b60ec7f-c48f-469e-a76e-9077d549fea3', 'f56d88e8-efe7-4b10-949e-6d175a6ea75c', '6c0a5d44-0262-4163-b660-6f6b91994edd', 'wallet.sign.sign-message', '{"digest": "5d6a50566384509b9569639d9bf73b2127fa1bb7eb168f446c66c746cad7e54c", "kekIds": ["file-service-a6ed68dd", "file-user-94e0591e"], "chainId": null}', '2026-12-02 01:11:09.157+00');
INSERT INTO public.audit_log VALUES (10, '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', '4b60ec7f-c48f-469e-a76e-9077d549fea3', '205accf9-5ce8-4ab2-94e9-79b20a837f02', '77eeb1dc-2ed6-43e5-bf75-1a2ab941a1a8', 'wallet.create', '{"type": "SUI", "scheme": "ED25519"}', '2026-12-02 01:11:09.212+00');
INSERT INTO public.audit_log VALUES (11, '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', '4b60ec7f-c48f-469e-a76e-9077d549fea3', '205accf9-5ce8-4ab2-94e9-79b20a837f02', '690ff89a-463f-413f-bc50-e8a84dd851b3', 'wallet.sign.sign-message', '{"digest": "3e821d208d0b848b900a79430e3194411c863e9a83bfe8e5e5de15aa794fd1ca", "kekIds": ["file-service-a6ed68dd", "file-user-94e0591e"], "chainId": null}', '2026-12-02 01:11:09.398+00');


--
-- Data for Name: authorization_scope_assignment_revisions; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: authorization_scope_assignments; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: auto_retry_settings; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: delegation_consents; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: enclave_keys; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: events; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.events VALUES ('evt_1FRbiSpkWLx6etvWwXKpQC-L6U8X2BpP', '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', 'wallet.created', '{"userId": null, "walletId": "5ef31f0e-0c9a-4eb8-b7b7-2a92207dcf4c", "walletType": "EVM", "walletAddress": "0x964937D1908C21757A14820318fe5AbCd3785Bf5", "walletCreatedAt": "2026-12-02T01:11:08.061Z"}', '2026-12-02 01:11:08.066+00', '2026-12-02 01:11:08.097+00', 1, NULL);
INSERT INTO public.events VALUES ('evt_2ZEyyc7TVthvlfOOFrTCOQaaRtVuG7Ts', '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', 'transaction.signed', '{"userId": null, "chainId": null, "signedAt": "2026-12-02T01:11:08.640Z", "walletId": "5ef31f0e-0c9a-4eb8-b7b7-2a92207dcf4c", "walletAddress": "0x964937D1908C21757A14820318fe5AbCd3785Bf5"}', '2026-12-02 01:11:08.641+00', '2026-12-02 01:11:08.766+00', 2, NULL);
INSERT INTO public.events VALUES ('evt_NuTdHW6X6fR8infgSq4UVMPVx_BFzgct', '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', 'wallet.created', '{"userId": null, "walletId": "73a9d351-cadc-4b54-8052-4f36a6741460", "walletType": "COSMOS", "walletAddress": "cosmos1natumut664et6pydnwdp2623vyvamck887dk4d", "walletCreatedAt": "2026-12-02T01:11:08.760Z"}', '2026-12-02 01:11:08.761+00', '2026-12-02 01:11:08.766+00', 3, NULL);
INSERT INTO public.events VALUES ('evt_KSVrGuyOd30lKj6unuZ38Cr1myAD8f6B', '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', 'transaction.signed', '{"userId": null, "chainId": null, "signedAt": "2026-12-02T01:11:08.880Z", "walletId": "73a9d351-cadc-4b54-8052-4f36a6741460", "walletAddress": "cosmos1natumut664et6pydnwdp2623vyvamck887dk4d"}', '2026-12-02 01:11:08.881+00', '2026-12-02 01:11:08.986+00', 4, NULL);
INSERT INTO public.events VALUES ('evt_zDMDUSBL6Ye8hiROG8batCoDVDQsXlHU', '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', 'wallet.created', '{"userId": null, "walletId": "1b6bc160-5428-48c3-bc0a-d1236501f3d6", "walletType": "SOLANA", "walletAddress": "AAeqDZst8pVP5gzrXY2ue4iCjD8BknKGmcfA42ntyqwV", "walletCreatedAt": "2026-12-02T01:11:08.967Z"}', '2026-12-02 01:11:08.968+00', '2026-12-02 01:11:08.986+00', 5, NULL);
INSERT INTO public.events VALUES ('evt_qFJF9EKUOoF5lDoXCvKzht1KzSExudLE', '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', 'transaction.signed', '{"userId": null, "chainId": null, "signedAt": "2026-12-02T01:11:09.041Z", "walletId": "1b6bc160-5428-48c3-bc0a-d1236501f3d6", "walletAddress": "AAeqDZst8pVP5gzrXY2ue4iCjD8BknKGmcfA42ntyqwV"}', '2026-12-02 01:11:09.042+00', '2026-12-02 01:11:09.114+00', 6, NULL);
INSERT INTO public.events VALUES ('evt_HBUtDHaLt7KPvofHJN-8SjRNeuTqA5-7', '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', 'wallet.created', '{"userId": null, "walletId": "f56d88e8-efe7-4b10-949e-6d175a6ea75c", "walletType": "STELLAR", "walletAddress": "GAW7GDSGQTTYEHMGEPYNMT5CQH4SUHM2PI4GAPJAQRVE4IYJL6JCI3GU", "walletCreatedAt": "2026-12-02T01:11:09.080Z"}', '2026-12-02 01:11:09.084+00', '2026-12-02 01:11:09.114+00', 7, NULL);
INSERT INTO public.events VALUES ('evt_lf62yRkuxV_lf8Hf5lhlgwtkAu4j0X9-', '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', 'transaction.signed', '{"userId": null, "chainId": null, "signedAt": "2026-12-02T01:11:09.156Z", "walletId": "f56d88e8-efe7-4b10-949e-6d175a6ea75c", "walletAddress": "GAW7GDSGQTTYEHMGEPYNMT5CQH4SUHM2PI4GAPJAQRVE4IYJL6JCI3GU"}', '2026-12-02 01:11:09.157+00', '2026-12-02 01:11:09.235+00', 8, NULL);
INSERT INTO public.events VALUES ('evt_TAQjZgVmaM8uFEBHqO-RkLfuXTZ0r59a', '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', 'wallet.created', '{"userId": null, "walletId": "205accf9-5ce8-4ab2-94e9-79b20a837f02", "walletType": "SUI", "walletAddress": "0x8d54be907e9670b313e2a9183575a6efcdfc978db1b5dddd173cfb93353bf936", "walletCreatedAt": "2026-12-02T01:11:09.211Z"}', '2026-12-02 01:11:09.212+00', '2026-12-02 01:11:09.235+00', 9, NULL);
INSERT INTO public.events VALUES ('evt_Ve58DaMfC3mXYmv3-7daAPVMkVU3BQbr', '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', 'transaction.signed', '{"userId": null, "chainId": null, "signedAt": "2026-12-02T01:11:09.372Z", "walletId": "205accf9-5ce8-4ab2-94e9-79b20a837f02", "walletAddress": "0x8d54be907e9670b313e2a9183575a6efcdfc978db1b5dddd173cfb93353bf936"}', '2026-12-02 01:11:09.398+00', '2026-12-02 01:11:09.446+00', 10, NULL);


--
-- Data for Name: idempotency_records; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: key_shares; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.key_shares VALUES ('5ef31f0e-0c9a-4eb8-b7b7-2a92207dcf4c', 'user', 'file-user-94e0591e', '\xa3d84cd9865d2df64ee566d2', '\x00620f26ff3a79c59e6a9c0ff822b6e643b4814f9f6e43f280a919b6d2a14c5a82807969a199d43a1b34e1cd58c1dba6', '2026-12-02 01:11:08.066+00');
INSERT INTO public.key_shares VALUES ('5ef31f0e-0c9a-4eb8-b7b7-2a92207dcf4c', 'service', 'file-service-a6ed68dd', '\xd03994c088b9769bb62c79d5', '\xfb7265a0540c5cf687a76bdaae51e599207916316f9aff8783f60e020c786148962b1f927b60773f112cd3dd148b8778', '2026-12-02 01:11:08.066+00');
INSERT INTO public.key_shares VALUES ('73a9d351-cadc-4b54-8052-4f36a6741460', 'user', 'file-user-94e0591e', '\xb836a41cc7a65aa74657c7d6', '\xca9c9de7298c79f223f672a5f9b155acf8eb9c03f891410388e2d9224f5f43ff310105d29c543bca0eb7f2f1e2638764', '2026-12-02 01:11:08.761+00');
INSERT INTO public.key_shares VALUES ('73a9d351-cadc-4b54-8052-4f36a6741460', 'service', 'file-service-a6ed68dd', '\x57b619127e72ccc1ce39ac7c', '\x4a3a5a22de9fcb956168acff6e1e7faf66a01ac5c85e37c557fefb6dd0995280e90fd65874288d17752b7ec4237e233e', '2026-12-02 01:11:08.761+00');
INSERT INTO public.key_shares VALUES ('1b6bc160-5428-48c3-bc0a-d1236501f3d6', 'user', 'file-user-94e0591e', '\xc0d5d88295b22c24c9850fa7', '\x2a5dfc25d06caa616168f9f80c0afac250891e459825d3ac0808649f063e33be307f7ff48be8d602e7b3db7a24c3d294', '2026-12-02 01:11:08.968+00');
INSERT INTO public.key_shares VALUES ('1b6bc160-5428-48c3-bc0a-d1236501f3d6', 'service', 'file-service-a6ed68dd', '\x605a4e4e46df0795b42a668a', '\x13ac9623ff175f152f75b46ed0e89a890030211b0c5d603ac9fc1a212136d47a69d416c7faa4ebdfa30cd1c79512e216', '2026-12-02 01:11:08.968+00');
INSERT INTO public.key_shares VALUES ('f56d88e8-efe7-4b10-949e-6d175a6ea75c', 'user', 'file-user-94e0591e', '\x124e5c7c9d9b7e58b9633b55', '\x6f8f8020acdc9945fe462e0c6d236b3d8baf0a6390a4ff58a59047be93cb4f380d26d183f215e45d3ff9e8f563498679', '2026-12-02 01:11:09.084+00');
INSERT INTO public.key_shares VALUES ('f56d88e8-efe7-4b10-949e-6d175a6ea75c', 'service', 'file-service-a6ed68dd', '\x651fff370a4548dfa700f7f8', '\x7cec562c278e5bff4e457d5ea26fe5056ed34d86fe9d2acf9bef9ef0b9a397bdd1e0621133d35ea9dc61ed678aff54ec', '2026-12-02 01:11:09.084+00');
INSERT INTO public.key_shares VALUES ('205accf9-5ce8-4ab2-94e9-79b20a837f02', 'user', 'file-user-94e0591e', '\xbf3ef3cb3a4a6784526762ed', '\xc465b68d42254eed912dc6df355c040932d9db33097c01a1e79b17999077a8acf2cad11c6b7668ddb9d57da2fb15d139', '2026-12-02 01:11:09.212+00');
INSERT INTO public.key_shares VALUES ('205accf9-5ce8-4ab2-94e9-79b20a837f02', 'service', 'file-service-a6ed68dd', '\xa5329697a8c94ec6f8b614e6', '\x89591b06dafb3a9c4a5041d29d7d92983352ba4a945da28354140f79d7818fe5c92cd07df3b0da9ccc3c190dbe276a81', '2026-12-02 01:11:09.212+00');


--
-- Data for Name: nonce_counters; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: nonce_reservations; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: partners; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.partners VALUES ('d99e5ed5-4d76-43ac-a08d-da34a3ee6608', 'local', '2026-12-02 01:11:01.965+00');
INSERT INTO public.partners VALUES ('a95b3853-d411-4a23-ac90-3584be382be5', 'previous-release', '2026-12-02 01:11:07.287+00');


--
-- Data for Name: permissions_extensions; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: policies; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: policy_spend_meters; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: policy_spend_reservations; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: policy_versions; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: projects; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.projects VALUES ('8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', 'a95b3853-d411-4a23-ac90-3584be382be5', 'default', '2026-12-02 01:11:07.394+00');


--
-- Data for Name: rate_limit_counters; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.rate_limit_counters VALUES ('4b60ec7f-c48f-469e-a76e-9077d549fea3', '2026-12-02 01:11:00+00', 10);


--
-- Data for Name: request_log; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.request_log VALUES (1, '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', '8074b5d8-b72e-4b24-8d81-c5f26f81cd99', 'POST', '/v1/wallets', 201, NULL, '4b60ec7f-c48f-469e-a76e-9077d549fea3', '5ef31f0e-0c9a-4eb8-b7b7-2a92207dcf4c', NULL, 31.907471, NULL, '2026-12-02 01:11:08.043+00', NULL);
INSERT INTO public.request_log VALUES (2, '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', 'a317f7f5-4937-49c4-9192-7adfc53c11ef', 'POST', '/v1/wallets/:walletId/sign-message', 200, NULL, '4b60ec7f-c48f-469e-a76e-9077d549fea3', '5ef31f0e-0c9a-4eb8-b7b7-2a92207dcf4c', NULL, 488.932708, NULL, '2026-12-02 01:11:08.167+00', NULL);
INSERT INTO public.request_log VALUES (3, '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', 'f9d56122-4058-4706-bb10-06e0faaeecd4', 'POST', '/v1/wallets', 201, NULL, '4b60ec7f-c48f-469e-a76e-9077d549fea3', '73a9d351-cadc-4b54-8052-4f36a6741460', NULL, 15.494277, NULL, '2026-12-02 01:11:08.751+00', NULL);
INSERT INTO public.request_log VALUES (4, '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', '1254cd82-9561-44b1-b0e7-025e51b25796', 'POST', '/v1/wallets/:walletId/sign-message', 200, NULL, '4b60ec7f-c48f-469e-a76e-9077d549fea3', '73a9d351-cadc-4b54-8052-4f36a6741460', NULL, 19.620774, NULL, '2026-12-02 01:11:08.864+00', NULL);
INSERT INTO public.request_log VALUES (5, '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', 'a6848971-2aec-4a77-922a-91cb1136dcf1', 'POST', '/v1/wallets', 201, NULL, '4b60ec7f-c48f-469e-a76e-9077d549fea3', '1b6bc160-5428-48c3-bc0a-d1236501f3d6', NULL, 13.624474, NULL, '2026-12-02 01:11:08.958+00', NULL);
INSERT INTO public.request_log VALUES (6, '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', '0a386487-0264-4891-9534-5785d75400c7', 'POST', '/v1/wallets/:walletId/sign-message', 200, NULL, '4b60ec7f-c48f-469e-a76e-9077d549fea3', '1b6bc160-5428-48c3-bc0a-d1236501f3d6', NULL, 10.809493999999999, NULL, '2026-12-02 01:11:09.034+00', NULL);
INSERT INTO public.request_log VALUES (7, '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', '74c03674-0912-4e09-a603-63035092c273', 'POST', '/v1/wallets', 201, NULL, '4b60ec7f-c48f-469e-a76e-9077d549fea3', 'f56d88e8-efe7-4b10-949e-6d175a6ea75c', NULL, 8.730590999999999, NULL, '2026-12-02 01:11:09.077+00', NULL);
INSERT INTO public.request_log VALUES (8, '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', '6c0a5d44-0262-4163-b660-6f6b91994edd', 'POST', '/v1/wallets/:walletId/sign-message', 200, NULL, '4b60ec7f-c48f-469e-a76e-9077d549fea3', 'f56d88e8-efe7-4b10-949e-6d175a6ea75c', NULL, 8.018319, NULL, '2026-12-02 01:11:09.15+00', NULL);
INSERT INTO public.request_log VALUES (9, '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', '77eeb1dc-2ed6-43e5-bf75-1a2ab941a1a8', 'POST', '/v1/wallets', 201, NULL, '4b60ec7f-c48f-469e-a76e-9077d549fea3', '205accf9-5ce8-4ab2-94e9-79b20a837f02', NULL, 14.168638000000001, NULL, '2026-12-02 01:11:09.202+00', NULL);
INSERT INTO public.request_log VALUES (10, '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', '690ff89a-463f-413f-bc50-e8a84dd851b3', 'POST', '/v1/wallets/:walletId/sign-message', 200, NULL, '4b60ec7f-c48f-469e-a76e-9077d549fea3', '205accf9-5ce8-4ab2-94e9-79b20a837f02', NULL, 59.510220000000004, NULL, '2026-12-02 01:11:09.346+00', NULL);


--
-- Data for Name: service_keys; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: sponsorship_budget; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: sponsorship_budget_reservations; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: sponsorship_settings; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: staff_accounts; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.staff_accounts VALUES ('7635a455-78a5-4970-a1b0-a01d0ac982d7', 'd99e5ed5-4d76-43ac-a08d-da34a3ee6608', 'owner@local.test', 'owner', 'scrypt$32768$8$1$qR+3F19yLSsgOh2XlBfY9g==$PhavhVYQl5RXYKBiyyMzYVWWALVtaDsW+EG5VD2G1lg=', '2026-12-02 01:11:01.965+00', NULL);


--
-- Data for Name: staff_sessions; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: transaction_attempts; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: transaction_records; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: user_parameter_revisions; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: user_parameter_sets; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: users; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: wallet_authorization_scope_revisions; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: wallet_authorization_scopes; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: wallets; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.wallets VALUES ('5ef31f0e-0c9a-4eb8-b7b7-2a92207dcf4c', '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', 'EVM', 'DKLS', '0x964937D1908C21757A14820318fe5AbCd3785Bf5', '0x0442aeec0f2c5c5b3a447cb88b5602ce06559e7dbdd32cc50af4a7fd174069df5077e33cab714ed8f52f0fc71741ea5a893f3475b1ee105702be17fc67fa934774', 'ready', 'previous-release-EVM', 'CUSTOM_ID', NULL, '2026-12-02 01:11:08.061+00', '2026-12-02 01:11:08.061+00', NULL, NULL, 'api_key', NULL);
INSERT INTO public.wallets VALUES ('73a9d351-cadc-4b54-8052-4f36a6741460', '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', 'COSMOS', 'DKLS', 'cosmos1natumut664et6pydnwdp2623vyvamck887dk4d', '0224c6c44793bad554bc2f0d5c3ec3e7b5e94cb058887e95c979fb3789d74f1841', 'ready', 'previous-release-COSMOS', 'CUSTOM_ID', 'cosmos', '2026-12-02 01:11:08.76+00', '2026-12-02 01:11:08.76+00', NULL, NULL, 'api_key', NULL);
INSERT INTO public.wallets VALUES ('1b6bc160-5428-48c3-bc0a-d1236501f3d6', '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', 'SOLANA', 'ED25519', 'AAeqDZst8pVP5gzrXY2ue4iCjD8BknKGmcfA42ntyqwV', 'AAeqDZst8pVP5gzrXY2ue4iCjD8BknKGmcfA42ntyqwV', 'ready', 'previous-release-SOLANA', 'CUSTOM_ID', NULL, '2026-12-02 01:11:08.967+00', '2026-12-02 01:11:08.967+00', NULL, NULL, 'api_key', NULL);
INSERT INTO public.wallets VALUES ('f56d88e8-efe7-4b10-949e-6d175a6ea75c', '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', 'STELLAR', 'ED25519', 'GAW7GDSGQTTYEHMGEPYNMT5CQH4SUHM2PI4GAPJAQRVE4IYJL6JCI3GU', 'GAW7GDSGQTTYEHMGEPYNMT5CQH4SUHM2PI4GAPJAQRVE4IYJL6JCI3GU', 'ready', 'previous-release-STELLAR', 'CUSTOM_ID', NULL, '2026-12-02 01:11:09.08+00', '2026-12-02 01:11:09.08+00', NULL, NULL, 'api_key', NULL);
INSERT INTO public.wallets VALUES ('205accf9-5ce8-4ab2-94e9-79b20a837f02', '8a61661b-fa9e-4b49-a36a-5f2a41cdfdab', 'SUI', 'ED25519', '0x8d54be907e9670b313e2a9183575a6efcdfc978db1b5dddd173cfb93353bf936', '3Ubktr8Tk3o058fxxrNVPbqX6NVpl7yoUqfNdV8w/jo=', 'ready', 'previous-release-SUI', 'CUSTOM_ID', NULL, '2026-12-02 01:11:09.211+00', '2026-12-02 01:11:09.211+00', NULL, NULL, 'api_key', NULL);


--
-- Data for Name: webhook_attempts; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: webhook_deliveries; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: webhook_endpoints; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: worker_leases; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: yield_operation_steps; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: yield_operations; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Name: audit_log_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.audit_log_id_seq', 11, true);


--
-- Name: events_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.events_seq_seq', 10, true);


--
-- Name: request_log_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.request_log_id_seq', 10, true);


--
-- Name: webhook_attempts_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.webhook_attempts_id_seq', 1, false);


--
-- Name: webhook_deliveries_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.webhook_deliveries_id_seq', 1, false);


--
-- Name: _prisma_migrations _prisma_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public._prisma_migrations
    ADD CONSTRAINT _prisma_migrations_pkey PRIMARY KEY (id);


--
-- Name: api_keys api_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);


--
-- Name: approval_case_decisions approval_case_decisions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.approval_case_decisions
    ADD CONSTRAINT approval_case_decisions_pkey PRIMARY KEY (case_id, user_id);


--
-- Name: approval_case_preparations approval_case_preparations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.approval_case_preparations
    ADD CONSTRAINT approval_case_preparations_pkey PRIMARY KEY (case_id);


--
-- Name: approval_cases approval_cases_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.approval_cases
    ADD CONSTRAINT approval_cases_pkey PRIMARY KEY (id);


--
-- Name: approval_configuration_revisions approval_configuration_revisions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.approval_configuration_revisions
    ADD CONSTRAINT approval_configuration_revisions_pkey PRIMARY KEY (id);


--
-- Name: approval_configurations approval_configurations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.approval_configurations
    ADD CONSTRAINT approval_configurations_pkey PRIMARY KEY (project_id, environment, scope_id, policy_id, policy_version, requirement_id);


--
-- Name: audit_log audit_log_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_log
    ADD CONSTRAINT audit_log_pkey PRIMARY KEY (id);


--
-- Name: authorization_scope_assignment_revisions authorization_scope_assignment_revisions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.authorization_scope_assignment_revisions
    ADD CONSTRAINT authorization_scope_assignment_revisions_pkey PRIMARY KEY (id);


--
-- Name: authorization_scope_assignments authorization_scope_assignments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.authorization_scope_assignments
    ADD CONSTRAINT authorization_scope_assignments_pkey PRIMARY KEY (project_id, environment, scope_id, user_id);


--
-- Name: auto_retry_settings auto_retry_settings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auto_retry_settings
    ADD CONSTRAINT auto_retry_settings_pkey PRIMARY KEY (project_id, environment);


--
-- Name: delegation_consents delegation_consents_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.delegation_consents
    ADD CONSTRAINT delegation_consents_pkey PRIMARY KEY (project_id, environment, user_id, wallet_id, policy_id);


--
-- Name: enclave_keys enclave_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.enclave_keys
    ADD CONSTRAINT enclave_keys_pkey PRIMARY KEY (id);


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (id);


--
-- Name: idempotency_records idempotency_records_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.idempotency_records
    ADD CONSTRAINT idempotency_records_pkey PRIMARY KEY (project_id, key);


--
-- Name: key_shares key_shares_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.key_shares
    ADD CONSTRAINT key_shares_pkey PRIMARY KEY (wallet_id, role);


--
-- Name: nonce_counters nonce_counters_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.nonce_counters
    ADD CONSTRAINT nonce_counters_pkey PRIMARY KEY (wallet_id, chain_id);


--
-- Name: nonce_reservations nonce_reservations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.nonce_reservations
    ADD CONSTRAINT nonce_reservations_pkey PRIMARY KEY (wallet_id, chain_id, nonce);


--
-- Name: partners partners_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partners
    ADD CONSTRAINT partners_pkey PRIMARY KEY (id);


--
-- Name: permissions_extensions permissions_extensions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.permissions_extensions
    ADD CONSTRAINT permissions_extensions_pkey PRIMARY KEY (project_id, environment);


--
-- Name: policies policies_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.policies
    ADD CONSTRAINT policies_pkey PRIMARY KEY (id);


--
-- Name: policy_spend_meters policy_spend_meters_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.policy_spend_meters
    ADD CONSTRAINT policy_spend_meters_pkey PRIMARY KEY (project_id, environment, api_key_id, wallet_id, network, asset, window_ms, window_start);


--
-- Name: policy_spend_reservations policy_spend_reservations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.policy_spend_reservations
    ADD CONSTRAINT policy_spend_reservations_pkey PRIMARY KEY (id);


--
-- Name: policy_versions policy_versions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.policy_versions
    ADD CONSTRAINT policy_versions_pkey PRIMARY KEY (policy_key, version);


--
-- Name: projects projects_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.projects
    ADD CONSTRAINT projects_pkey PRIMARY KEY (id);


--
-- Name: rate_limit_counters rate_limit_counters_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rate_limit_counters
    ADD CONSTRAINT rate_limit_counters_pkey PRIMARY KEY (api_key_id, window_start);


--
-- Name: request_log request_log_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.request_log
    ADD CONSTRAINT request_log_pkey PRIMARY KEY (id);


--
-- Name: service_keys service_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.service_keys
    ADD CONSTRAINT service_keys_pkey PRIMARY KEY (purpose, chain_id);


--
-- Name: sponsorship_budget sponsorship_budget_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sponsorship_budget
    ADD CONSTRAINT sponsorship_budget_pkey PRIMARY KEY (project_id, environment, day);


--
-- Name: sponsorship_budget_reservations sponsorship_budget_reservations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sponsorship_budget_reservations
    ADD CONSTRAINT sponsorship_budget_reservations_pkey PRIMARY KEY (operation_id);


--
-- Name: sponsorship_settings sponsorship_settings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sponsorship_settings
    ADD CONSTRAINT sponsorship_settings_pkey PRIMARY KEY (project_id, environment);


--
-- Name: staff_accounts staff_accounts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.staff_accounts
    ADD CONSTRAINT staff_accounts_pkey PRIMARY KEY (id);


--
-- Name: staff_sessions staff_sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.staff_sessions
    ADD CONSTRAINT staff_sessions_pkey PRIMARY KEY (id);


--
-- Name: transaction_attempts transaction_attempts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transaction_attempts
    ADD CONSTRAINT transaction_attempts_pkey PRIMARY KEY (id);


--
-- Name: transaction_records transaction_records_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transaction_records
    ADD CONSTRAINT transaction_records_pkey PRIMARY KEY (id);


--
-- Name: user_parameter_revisions user_parameter_revisions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.user_parameter_revisions
    ADD CONSTRAINT user_parameter_revisions_pkey PRIMARY KEY (id);


--
-- Name: user_parameter_sets user_parameter_sets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.user_parameter_sets
    ADD CONSTRAINT user_parameter_sets_pkey PRIMARY KEY (project_id, environment, user_id, wallet_id, policy_id);


--
-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);


--
-- Name: wallet_authorization_scope_revisions wallet_authorization_scope_revisions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.wallet_authorization_scope_revisions
    ADD CONSTRAINT wallet_authorization_scope_revisions_pkey PRIMARY KEY (id);


--
-- Name: wallet_authorization_scopes wallet_authorization_scopes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.wallet_authorization_scopes
    ADD CONSTRAINT wallet_authorization_scopes_pkey PRIMARY KEY (project_id, environment, wallet_id);


--
-- Name: wallets wallets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.wallets
    ADD CONSTRAINT wallets_pkey PRIMARY KEY (id);


--
-- Name: webhook_attempts webhook_attempts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_attempts
    ADD CONSTRAINT webhook_attempts_pkey PRIMARY KEY (id);


--
-- Name: webhook_deliveries webhook_deliveries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id);


--
-- Name: webhook_endpoints webhook_endpoints_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (id);


--
-- Name: worker_leases worker_leases_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.worker_leases
    ADD CONSTRAINT worker_leases_pkey PRIMARY KEY (name);


--
-- Name: yield_operation_steps yield_operation_steps_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.yield_operation_steps
    ADD CONSTRAINT yield_operation_steps_pkey PRIMARY KEY (operation_id, phase);


--
-- Name: yield_operations yield_operations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.yield_operations
    ADD CONSTRAINT yield_operations_pkey PRIMARY KEY (id);


--
-- Name: api_keys_key_hash_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX api_keys_key_hash_key ON public.api_keys USING btree (key_hash);


--
-- Name: api_keys_project_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX api_keys_project_id_idx ON public.api_keys USING btree (project_id);


--
-- Name: approval_cases_one_open; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX approval_cases_one_open ON public.approval_cases USING btree (project_id, environment, case_key) WHERE (status = ANY (ARRAY['pending'::text, 'completed'::text]));


--
-- Name: approval_cases_partner_reviews_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX approval_cases_partner_reviews_idx ON public.approval_cases USING btree (project_id, environment, created_at DESC, id DESC) WHERE partner_review;


--
-- Name: approval_cases_project_id_environment_case_key_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX approval_cases_project_id_environment_case_key_created_at_idx ON public.approval_cases USING btree (project_id, environment, case_key, created_at DESC);


--
-- Name: approval_cases_project_id_environment_created_at_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX approval_cases_project_id_environment_created_at_id_idx ON public.approval_cases USING btree (project_id, environment, created_at DESC, id DESC);


--
-- Name: approval_cases_project_id_environment_scope_id_status_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX approval_cases_project_id_environment_scope_id_status_idx ON public.approval_cases USING btree (project_id, environment, scope_id, status);


--
-- Name: approval_cases_wallet_id_consumed_request_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX approval_cases_wallet_id_consumed_request_id_idx ON public.approval_cases USING btree (wallet_id, consumed_request_id);


--
-- Name: approval_cases_wallet_id_status_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX approval_cases_wallet_id_status_idx ON public.approval_cases USING btree (wallet_id, status);


--
-- Name: approval_configuration_revisions_project_id_environment_sco_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX approval_configuration_revisions_project_id_environment_sco_key ON public.approval_configuration_revisions USING btree (project_id, environment, scope_id, policy_id, policy_version, requirement_id, revision);


--
-- Name: audit_log_wallet_id_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_log_wallet_id_id_idx ON public.audit_log USING btree (wallet_id, id);


--
-- Name: authorization_scope_assignment_revisions_project_id_environ_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX authorization_scope_assignment_revisions_project_id_environ_key ON public.authorization_scope_assignment_revisions USING btree (project_id, environment, scope_id, user_id, revision);


--
-- Name: authorization_scope_assignments_user_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX authorization_scope_assignments_user_id_idx ON public.authorization_scope_assignments USING btree (user_id);


--
-- Name: delegation_consents_user_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX delegation_consents_user_id_idx ON public.delegation_consents USING btree (user_id);


--
-- Name: enclave_keys_is_current_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX enclave_keys_is_current_key ON public.enclave_keys USING btree (is_current);


--
-- Name: events_project_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_project_id_created_at_idx ON public.events USING btree (project_id, created_at);


--
-- Name: events_seq_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_seq_idx ON public.events USING btree (seq) WHERE (dispatched_at IS NULL);


--
-- Name: events_transaction_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_transaction_id_idx ON public.events USING btree (transaction_id) WHERE (transaction_id IS NOT NULL);


--
-- Name: idempotency_records_expires_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idempotency_records_expires_at_idx ON public.idempotency_records USING btree (expires_at);


--
-- Name: partners_name_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX partners_name_key ON public.partners USING btree (name);


--
-- Name: policies_project_id_environment_policy_id_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX policies_project_id_environment_policy_id_key ON public.policies USING btree (project_id, environment, policy_id);


--
-- Name: policy_spend_meters_window_start_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX policy_spend_meters_window_start_idx ON public.policy_spend_meters USING btree (window_start);


--
-- Name: policy_spend_reservations_held_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX policy_spend_reservations_held_idx ON public.policy_spend_reservations USING btree (project_id) WHERE (status = 'reserved'::text);


--
-- Name: policy_spend_reservations_settled_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX policy_spend_reservations_settled_at_idx ON public.policy_spend_reservations USING btree (settled_at);


--
-- Name: policy_versions_one_active; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX policy_versions_one_active ON public.policy_versions USING btree (policy_key) WHERE (status = 'active'::text);


--
-- Name: projects_partner_id_name_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX projects_partner_id_name_key ON public.projects USING btree (partner_id, name);


--
-- Name: request_log_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX request_log_at_idx ON public.request_log USING btree (at);


--
-- Name: request_log_project_id_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX request_log_project_id_at_idx ON public.request_log USING btree (project_id, at DESC);


--
-- Name: request_log_request_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX request_log_request_id_idx ON public.request_log USING btree (request_id);


--
-- Name: request_log_wallet_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX request_log_wallet_at_idx ON public.request_log USING btree (wallet_id, at DESC);


--
-- Name: staff_accounts_email_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX staff_accounts_email_key ON public.staff_accounts USING btree (email);


--
-- Name: staff_accounts_partner_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX staff_accounts_partner_id_idx ON public.staff_accounts USING btree (partner_id);


--
-- Name: staff_sessions_staff_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX staff_sessions_staff_id_idx ON public.staff_sessions USING btree (staff_id);


--
-- Name: staff_sessions_token_hash_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX staff_sessions_token_hash_key ON public.staff_sessions USING btree (token_hash);


--
-- Name: transaction_attempts_record_id_hash_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX transaction_attempts_record_id_hash_key ON public.transaction_attempts USING btree (record_id, hash);


--
-- Name: transaction_attempts_record_id_number_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX transaction_attempts_record_id_number_key ON public.transaction_attempts USING btree (record_id, number);


--
-- Name: transaction_records_evidence_block_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX transaction_records_evidence_block_idx ON public.transaction_records USING btree (evidence_block);


--
-- Name: transaction_records_next_check_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX transaction_records_next_check_at_idx ON public.transaction_records USING btree (next_check_at);


--
-- Name: transaction_records_project_id_created_at_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX transaction_records_project_id_created_at_id_idx ON public.transaction_records USING btree (project_id, created_at DESC, id DESC);


--
-- Name: transaction_records_project_id_hash_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX transaction_records_project_id_hash_idx ON public.transaction_records USING btree (project_id, hash);


--
-- Name: transaction_records_project_id_idempotency_key_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX transaction_records_project_id_idempotency_key_key ON public.transaction_records USING btree (project_id, idempotency_key);


--
-- Name: transaction_records_project_id_status_created_at_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX transaction_records_project_id_status_created_at_id_idx ON public.transaction_records USING btree (project_id, status, created_at DESC, id DESC);


--
-- Name: transaction_records_user_operation_hash_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX transaction_records_user_operation_hash_idx ON public.transaction_records USING btree (user_operation_hash);


--
-- Name: transaction_records_wallet_id_chain_id_nonce_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX transaction_records_wallet_id_chain_id_nonce_idx ON public.transaction_records USING btree (wallet_id, chain_id, nonce);


--
-- Name: transaction_records_wallet_id_created_at_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX transaction_records_wallet_id_created_at_id_idx ON public.transaction_records USING btree (wallet_id, created_at DESC, id DESC);


--
-- Name: user_parameter_revisions_project_id_environment_user_id_wal_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX user_parameter_revisions_project_id_environment_user_id_wal_key ON public.user_parameter_revisions USING btree (project_id, environment, user_id, wallet_id, policy_id, revision);


--
-- Name: user_parameter_sets_user_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX user_parameter_sets_user_id_idx ON public.user_parameter_sets USING btree (user_id);


--
-- Name: users_identifier_prefix_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX users_identifier_prefix_idx ON public.users USING btree (project_id, lower(identifier) COLLATE "C");


--
-- Name: users_project_id_identifier_type_identifier_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX users_project_id_identifier_type_identifier_key ON public.users USING btree (project_id, identifier_type, identifier);


--
-- Name: wallet_authorization_scope_revisions_project_id_environment_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX wallet_authorization_scope_revisions_project_id_environment_key ON public.wallet_authorization_scope_revisions USING btree (project_id, environment, wallet_id, revision);


--
-- Name: wallet_authorization_scopes_wallet_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX wallet_authorization_scopes_wallet_id_idx ON public.wallet_authorization_scopes USING btree (wallet_id);


--
-- Name: wallets_lower_address_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX wallets_lower_address_idx ON public.wallets USING btree (lower(address));


--
-- Name: wallets_project_id_address_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX wallets_project_id_address_idx ON public.wallets USING btree (project_id, address);


--
-- Name: wallets_project_id_created_at_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX wallets_project_id_created_at_id_idx ON public.wallets USING btree (project_id, created_at DESC, id DESC);


--
-- Name: wallets_project_id_user_identifier_type_user_identifier_typ_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX wallets_project_id_user_identifier_type_user_identifier_typ_key ON public.wallets USING btree (project_id, user_identifier_type, user_identifier, type, scheme);


--
-- Name: wallets_user_identifier_prefix_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX wallets_user_identifier_prefix_idx ON public.wallets USING btree (project_id, lower(user_identifier) COLLATE "C");


--
-- Name: webhook_attempts_delivery_id_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_attempts_delivery_id_id_idx ON public.webhook_attempts USING btree (delivery_id, id);


--
-- Name: webhook_deliveries_endpoint_id_event_seq_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_endpoint_id_event_seq_idx ON public.webhook_deliveries USING btree (endpoint_id, event_seq) WHERE (status = 'pending'::text);


--
-- Name: webhook_deliveries_event_id_endpoint_id_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX webhook_deliveries_event_id_endpoint_id_key ON public.webhook_deliveries USING btree (event_id, endpoint_id);


--
-- Name: webhook_deliveries_next_attempt_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_next_attempt_at_idx ON public.webhook_deliveries USING btree (next_attempt_at) WHERE (status = 'pending'::text);


--
-- Name: webhook_endpoints_api_key_id_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX webhook_endpoints_api_key_id_key ON public.webhook_endpoints USING btree (api_key_id);


--
-- Name: webhook_endpoints_project_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_endpoints_project_id_idx ON public.webhook_endpoints USING btree (project_id);


--
-- Name: yield_operation_steps_transaction_id_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX yield_operation_steps_transaction_id_key ON public.yield_operation_steps USING btree (transaction_id);


--
-- Name: yield_operations_next_run_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX yield_operations_next_run_at_idx ON public.yield_operations USING btree (next_run_at);


--
-- Name: yield_operations_partner_id_idempotency_key_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX yield_operations_partner_id_idempotency_key_key ON public.yield_operations USING btree (partner_id, idempotency_key);


--
-- Name: yield_operations_project_id_created_at_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX yield_operations_project_id_created_at_id_idx ON public.yield_operations USING btree (project_id, created_at DESC, id DESC);


--
-- Name: yield_operations_wallet_id_chain_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX yield_operations_wallet_id_chain_id_created_at_idx ON public.yield_operations USING btree (wallet_id, chain_id, created_at);


--
-- Name: approval_case_decisions approval_case_decisions_append_only; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER approval_case_decisions_append_only BEFORE DELETE OR UPDATE ON public.approval_case_decisions FOR EACH ROW EXECUTE FUNCTION public.authorization_scope_revisions_append_only();


--
-- Name: approval_configuration_revisions approval_configuration_revisions_append_only; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER approval_configuration_revisions_append_only BEFORE DELETE OR UPDATE ON public.approval_configuration_revisions FOR EACH ROW EXECUTE FUNCTION public.authorization_scope_revisions_append_only();


--
-- Name: audit_log audit_log_append_only; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER audit_log_append_only BEFORE DELETE OR UPDATE ON public.audit_log FOR EACH ROW EXECUTE FUNCTION public.audit_log_append_only();


--
-- Name: authorization_scope_assignment_revisions authorization_scope_assignment_revisions_append_only; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER authorization_scope_assignment_revisions_append_only BEFORE DELETE OR UPDATE ON public.authorization_scope_assignment_revisions FOR EACH ROW EXECUTE FUNCTION public.authorization_scope_revisions_append_only();


--
-- Name: policy_versions policy_versions_no_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER policy_versions_no_delete BEFORE DELETE ON public.policy_versions FOR EACH ROW EXECUTE FUNCTION public.policy_versions_no_delete();


--
-- Name: user_parameter_revisions user_parameter_revisions_append_only; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER user_parameter_revisions_append_only BEFORE DELETE OR UPDATE ON public.user_parameter_revisions FOR EACH ROW EXECUTE FUNCTION public.authorization_scope_revisions_append_only();


--
-- Name: wallet_authorization_scope_revisions wallet_authorization_scope_revisions_append_only; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER wallet_authorization_scope_revisions_append_only BEFORE DELETE OR UPDATE ON public.wallet_authorization_scope_revisions FOR EACH ROW EXECUTE FUNCTION public.authorization_scope_revisions_append_only();


--
-- Name: api_keys api_keys_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: approval_case_decisions approval_case_decisions_case_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.approval_case_decisions
    ADD CONSTRAINT approval_case_decisions_case_id_fkey FOREIGN KEY (case_id) REFERENCES public.approval_cases(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: approval_case_preparations approval_case_preparations_case_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.approval_case_preparations
    ADD CONSTRAINT approval_case_preparations_case_id_fkey FOREIGN KEY (case_id) REFERENCES public.approval_cases(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: approval_configurations approval_configurations_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.approval_configurations
    ADD CONSTRAINT approval_configurations_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: authorization_scope_assignments authorization_scope_assignments_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.authorization_scope_assignments
    ADD CONSTRAINT authorization_scope_assignments_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: authorization_scope_assignments authorization_scope_assignments_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.authorization_scope_assignments
    ADD CONSTRAINT authorization_scope_assignments_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: auto_retry_settings auto_retry_settings_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auto_retry_settings
    ADD CONSTRAINT auto_retry_settings_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: key_shares key_shares_wallet_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.key_shares
    ADD CONSTRAINT key_shares_wallet_id_fkey FOREIGN KEY (wallet_id) REFERENCES public.wallets(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: permissions_extensions permissions_extensions_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.permissions_extensions
    ADD CONSTRAINT permissions_extensions_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: policies policies_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.policies
    ADD CONSTRAINT policies_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: policy_versions policy_versions_policy_key_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.policy_versions
    ADD CONSTRAINT policy_versions_policy_key_fkey FOREIGN KEY (policy_key) REFERENCES public.policies(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: projects projects_partner_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.projects
    ADD CONSTRAINT projects_partner_id_fkey FOREIGN KEY (partner_id) REFERENCES public.partners(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: sponsorship_settings sponsorship_settings_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sponsorship_settings
    ADD CONSTRAINT sponsorship_settings_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: staff_accounts staff_accounts_partner_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.staff_accounts
    ADD CONSTRAINT staff_accounts_partner_id_fkey FOREIGN KEY (partner_id) REFERENCES public.partners(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: staff_sessions staff_sessions_staff_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.staff_sessions
    ADD CONSTRAINT staff_sessions_staff_id_fkey FOREIGN KEY (staff_id) REFERENCES public.staff_accounts(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: transaction_attempts transaction_attempts_record_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transaction_attempts
    ADD CONSTRAINT transaction_attempts_record_id_fkey FOREIGN KEY (record_id) REFERENCES public.transaction_records(id) ON UPDATE CASCADE ON DELETE CASCADE;


--
-- Name: users users_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: wallet_authorization_scopes wallet_authorization_scopes_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.wallet_authorization_scopes
    ADD CONSTRAINT wallet_authorization_scopes_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: wallet_authorization_scopes wallet_authorization_scopes_wallet_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.wallet_authorization_scopes
    ADD CONSTRAINT wallet_authorization_scopes_wallet_id_fkey FOREIGN KEY (wallet_id) REFERENCES public.wallets(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: wallets wallets_claimed_by_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.wallets
    ADD CONSTRAINT wallets_claimed_by_user_id_fkey FOREIGN KEY (claimed_by_user_id) REFERENCES public.users(id) ON UPDATE CASCADE ON DELETE SET NULL;


--
-- Name: wallets wallets_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.wallets
    ADD CONSTRAINT wallets_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: webhook_attempts webhook_attempts_delivery_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_attempts
    ADD CONSTRAINT webhook_attempts_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES public.webhook_deliveries(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: webhook_deliveries webhook_deliveries_endpoint_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES public.webhook_endpoints(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: webhook_deliveries webhook_deliveries_event_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.events(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: webhook_endpoints webhook_endpoints_api_key_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_api_key_id_fkey FOREIGN KEY (api_key_id) REFERENCES public.api_keys(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: yield_operation_steps yield_operation_steps_operation_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.yield_operation_steps
    ADD CONSTRAINT yield_operation_steps_operation_id_fkey FOREIGN KEY (operation_id) REFERENCES public.yield_operations(id) ON UPDATE CASCADE ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--

\unrestrict tdG7Ty6V55qmoGO9APSQJsdikA4pLc9rR2ql2gGlKuK5YsdvOguWxSVtxMPHEr0

