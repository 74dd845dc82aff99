-- n8n's role and database, made once, when Postgres initialises an empty data directory: the official
-- image's entrypoint runs /docker-entrypoint-initdb.d/*.sql with psql as its superuser (POSTGRES_USER),
-- over the socket only, before the server listens on the network. compose.yaml mounts this folder read-only;
-- the Kubernetes base can mount the same file (a ConfigMap's default mode will do: a .sql file is read,
-- never run). Needs psql 15+ (\getenv) and, in the container's environment:
--   N8N_DB_PASSWORD  n8n's password (the lab's POSTGRES_PASSWORD)
-- and POSTGRES_USER set to a role that is not n8n (the lab's: postgres).
--
-- n8n owns its database and is nothing more: no superuser, so a Postgres credential tried from a workflow
-- with n8n's password runs neither COPY ... TO PROGRAM (a shell in this container) nor ALTER ROLE ...
-- SUPERUSER, and reads no server file. The superuser keeps no password: the image makes it with one (the
-- lab gives a random one nobody knows, POSTGRES_PASSWORD_FILE=/proc/sys/kernel/random/uuid), removed here,
-- so it has no network login at all (pg_hba's `host` line asks for a password); `docker exec` into the
-- container and psql over its socket is the only way in as superuser.
\set ON_ERROR_STOP on

-- A statement below holds a password: never into the server's log, not even when it fails.
SET log_statement = 'none';
SET log_min_error_statement = 'panic';

\set n8n_password ''
\getenv n8n_password N8N_DB_PASSWORD
SELECT :'n8n_password' = '' AS n8n_password_missing \gset
\if :n8n_password_missing
  DO $$ BEGIN RAISE EXCEPTION 'N8N_DB_PASSWORD is empty: n8n''s role needs its password'; END $$;
\endif
SELECT current_user = 'n8n' AS superuser_is_n8n \gset
\if :superuser_is_n8n
  DO $$ BEGIN RAISE EXCEPTION 'POSTGRES_USER is n8n: the superuser must be another role'; END $$;
\endif

ALTER ROLE CURRENT_USER PASSWORD NULL;
CREATE ROLE n8n LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'n8n_password';
\unset n8n_password
CREATE DATABASE n8n OWNER n8n;
-- n8n reaches its own database only (every role may connect to these by default).
REVOKE CONNECT, TEMPORARY ON DATABASE postgres, template1 FROM PUBLIC;
