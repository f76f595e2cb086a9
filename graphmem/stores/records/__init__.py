"""The records store: memory rows, graph tables, outbox and audit log, in SQLite or MySQL.

`port` holds the narrow ports callers type against and `RecordsStore`, their union; `rows` the
values they exchange. The SQL adapters (`sqlite`, `mysql`) are imported by `open_records`, not
here, so reading a port never loads a database driver.
"""

from graphmem.stores.records.port import (
    AuditLog,
    ErasableRecords,
    GraphTables,
    LifecycleRecords,
    MemoryRecords,
    Outbox,
    RecordsStore,
    StoreHandle,
    StoreMetadata,
    VaultRecords,
)
from graphmem.stores.records.rows import (
    ERASE_MARK,
    EntityRef,
    GraphRows,
    OutboxItem,
    Placed,
    RecordQuery,
    Relation,
    SecretRow,
    Supersession,
)

__all__ = [
    "ERASE_MARK",
    "AuditLog",
    "EntityRef",
    "ErasableRecords",
    "GraphRows",
    "GraphTables",
    "LifecycleRecords",
    "MemoryRecords",
    "Outbox",
    "OutboxItem",
    "Placed",
    "RecordQuery",
    "RecordsStore",
    "Relation",
    "SecretRow",
    "StoreHandle",
    "StoreMetadata",
    "Supersession",
    "VaultRecords",
]
