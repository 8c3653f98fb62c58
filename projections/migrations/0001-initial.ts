/**
 * Initial schema: the append-only events table, read models, and operational tables.
 * One SQL dialect (Postgres) for PGlite and a PostgreSQL server.
 */
import { sql, type Kysely } from 'kysely';

const schema = `
    create table events (
      global_position bigserial primary key,
      stream_id text not null,
      stream_version integer not null,
      type text not null,
      data jsonb not null,
      metadata jsonb not null default '{}',
      recorded_at timestamptz not null default now(),
      unique (stream_id, stream_version)
    );

    create table projection_checkpoints (
      name text primary key,
      position bigint not null,
      updated_at timestamptz not null
    );

    create sequence case_number_seq;

    create table cases (
      id uuid primary key,
      key text not null unique,
      number integer not null,
      title text not null,
      description text,
      severity text not null,
      tags jsonb not null default '[]',
      status text not null,
      owner_id uuid,
      owner_email text,
      team text,
      alert_count integer not null default 0,
      correlation_key text,
      acknowledged_at timestamptz,
      acknowledged_by text,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      resolved_at timestamptz,
      closed_at timestamptz,
      last_alert_at timestamptz,
      version integer not null
    );
    create index cases_status_severity on cases (status, severity, created_at desc);
    create index cases_created on cases (created_at desc);

    create table case_timeline (
      event_position bigint primary key,
      case_id uuid not null,
      kind text not null,
      payload jsonb not null,
      actor_id text,
      actor_email text,
      at timestamptz not null
    );
    create index case_timeline_case on case_timeline (case_id, event_position);

    create table case_comments (
      id uuid primary key,
      case_id uuid not null,
      body text not null,
      author_id text,
      author_email text,
      created_at timestamptz not null,
      deleted_at timestamptz
    );
    create index case_comments_case on case_comments (case_id, created_at);

    create table alerts (
      id uuid primary key,
      source text not null,
      external_id text not null,
      rule_id text,
      title text not null,
      severity text not null,
      status text not null,
      case_id uuid,
      detected_at timestamptz,
      url text,
      correlation_key text,
      suite_correlation_id text,
      team text,
      repeat_count integer not null default 0,
      payload jsonb not null,
      version integer not null,
      received_at timestamptz not null,
      last_seen_at timestamptz not null,
      unique (source, external_id)
    );
    create index alerts_received on alerts (received_at desc);
    create index alerts_case on alerts (case_id);

    create table runs (
      id uuid primary key,
      runbook_id text not null,
      runbook_version integer not null,
      case_id uuid,
      status text not null,
      trigger_type text not null,
      dry_run boolean not null,
      requested_by text,
      error text,
      queued_at timestamptz not null,
      started_at timestamptz,
      finished_at timestamptz
    );
    create index runs_case on runs (case_id, queued_at);
    create index runs_queued on runs (queued_at desc);

    create table run_steps (
      run_id uuid not null,
      step_id text not null,
      position integer not null,
      status text not null,
      attempt integer not null,
      output jsonb,
      error text,
      started_at timestamptz,
      finished_at timestamptz,
      primary key (run_id, step_id)
    );

    create table action_log (
      chain_index bigint primary key,
      event_position bigint not null unique,
      run_id uuid not null,
      step_id text not null,
      row jsonb not null,
      prev_hash text not null,
      hash text not null
    );
    create index action_log_run on action_log (run_id, chain_index);

    create table jobs (
      id bigserial primary key,
      kind text not null,
      key text not null,
      due_at timestamptz not null,
      lease_owner text,
      lease_until timestamptz,
      unique (kind, key)
    );
    create index jobs_due on jobs (due_at);

    create table runbooks (
      slug text primary key,
      version integer not null,
      name text not null,
      description text,
      enabled boolean not null,
      trigger_type text not null,
      definition jsonb not null,
      yaml_text text not null,
      source text not null,
      updated_at timestamptz not null
    );

    create table runbook_versions (
      slug text not null,
      version integer not null,
      yaml_text text not null,
      saved_at timestamptz not null,
      saved_by text,
      primary key (slug, version, saved_at)
    );

    create table users (
      id uuid primary key,
      subject text not null unique,
      email text not null,
      name text,
      active boolean not null,
      updated_at timestamptz not null
    );

    create table used_token_ids (
      jti text primary key,
      expires_at timestamptz not null
    );
    create index used_token_ids_expiry on used_token_ids (expires_at);

    create table connections (
      id uuid primary key,
      kind text not null,
      name text not null unique,
      base_url text,
      config jsonb not null,
      secret_ciphertext text,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  // PGlite's extended protocol runs one statement per query.
  for (const statement of schema.split(/;\s*\n/)) {
    if (statement.trim()) await sql.raw(statement).execute(db);
  }
}

export async function down(): Promise<void> {
  throw new Error('the initial migration is not reversible');
}
