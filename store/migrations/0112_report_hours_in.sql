-- The hourly report (messages in per hour of the day) reads this index alone (issue 46: the
-- reports page over a year): over 366 days the table's ~175,000 rows of 21 measures took ~200 ms
-- to sum, the hour and the one measure ~40 ms. The roll-up writes each hour's rows once a minute.
CREATE INDEX report_hours_in_idx ON report_hours (workspace_id, hour) INCLUDE (channel_id, team_id, messages_in);
