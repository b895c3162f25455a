-- The daemon records its own pass interval (status judges its heartbeat by it, not by the
-- interval in whichever config `status` read) and when it stopped cleanly.
ALTER TABLE daemon_state ADD COLUMN reconcile_interval real;
ALTER TABLE daemon_state ADD COLUMN stopped_at timestamptz;
