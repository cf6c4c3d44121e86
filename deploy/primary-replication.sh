#!/bin/sh
# Run once by the postgres image when the primary's data directory is created: lets the standby
# connect for replication with the same role and password (scram-sha-256).
set -eu
echo "host replication catalogue all scram-sha-256" >> "$PGDATA/pg_hba.conf"
