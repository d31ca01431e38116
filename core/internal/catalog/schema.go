package catalog

// ddl is the catalog schema of docs/format.md §9.
// Every statement is idempotent: it runs on each writable open, which is how a store written
// before the association tables existed gains them (docs/format.md §9.6).
// The two DROP INDEX statements rename the pre-association unique indexes in place.
const ddl = `
CREATE TABLE IF NOT EXISTS time_series_associations (
    id                INTEGER PRIMARY KEY,
    owner_id          INTEGER NOT NULL,
    owner_type        TEXT    NOT NULL,
    owner_category    TEXT    NOT NULL CHECK(owner_category IN ('Component','SupplementalAttribute')),
    time_series_type  TEXT    NOT NULL,
    name              TEXT    NOT NULL,
    initial_timestamp TEXT,
    resolution        TEXT,
    length            INTEGER,
    horizon           TEXT,
    interval          TEXT,
    count             INTEGER,
    timestamps_json   TEXT,
    units             TEXT,
    percentiles_json  TEXT,
    dtype             TEXT    NOT NULL DEFAULT 'f64',
    element_shape     TEXT,
    ext               TEXT,
    data_hash         BLOB    NOT NULL,
    features_hash     BLOB    NOT NULL
);
CREATE TABLE IF NOT EXISTS feature_sets (
    key           TEXT NOT NULL,
    value_kind    TEXT NOT NULL CHECK(value_kind IN ('int','float','bool','str')),
    value_int     INTEGER,
    value_float   REAL,
    value_bool    INTEGER,
    value_str     TEXT,
    features_hash BLOB NOT NULL,
    PRIMARY KEY (features_hash, key)
);
CREATE TABLE IF NOT EXISTS supplemental_attribute_associations (
    id             INTEGER PRIMARY KEY,
    component_id   INTEGER NOT NULL,
    component_type TEXT    NOT NULL,
    attribute_id   INTEGER NOT NULL,
    attribute_type TEXT    NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS uq_sa_assoc
    ON supplemental_attribute_associations(component_id, attribute_id);
CREATE INDEX IF NOT EXISTS idx_sa_assoc_attribute
    ON supplemental_attribute_associations(attribute_id, component_id, component_type);
CREATE TABLE IF NOT EXISTS parent_child_associations (
    id          INTEGER PRIMARY KEY,
    parent_id   INTEGER NOT NULL,
    parent_type TEXT    NOT NULL,
    child_id    INTEGER NOT NULL,
    child_type  TEXT    NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS uq_parent_child
    ON parent_child_associations(parent_id, child_id);
CREATE INDEX IF NOT EXISTS idx_parent_child_child
    ON parent_child_associations(child_id, parent_id, parent_type);
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version(version) SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM schema_version);
DROP INDEX IF EXISTS uq_assoc;
DROP INDEX IF EXISTS uq_assoc_coalesced;
CREATE UNIQUE INDEX IF NOT EXISTS uq_ts_assoc ON time_series_associations
    (owner_id, owner_category, time_series_type, name, resolution, interval, features_hash);
CREATE UNIQUE INDEX IF NOT EXISTS uq_ts_assoc_coalesced ON time_series_associations
    (owner_id, owner_category, time_series_type, name,
     COALESCE(resolution, ''), COALESCE(interval, ''), features_hash);
CREATE INDEX IF NOT EXISTS idx_hash       ON time_series_associations(data_hash);
CREATE INDEX IF NOT EXISTS idx_owner      ON time_series_associations(owner_id, owner_category);
CREATE INDEX IF NOT EXISTS idx_resolution ON time_series_associations(resolution);
-- Secondary indexes for the query surface; docs/format.md §9.6 allows them (names are not
-- part of the contract).
CREATE INDEX IF NOT EXISTS idx_ts_type       ON time_series_associations(time_series_type);
CREATE INDEX IF NOT EXISTS idx_ts_owner_type ON time_series_associations(owner_type);
`

// SchemaVersion is the value schema_version holds in a catalog this build writes.
const SchemaVersion = 1
