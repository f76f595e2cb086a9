"""The domain: the rules of memory, written once, that the use-cases compose and every
interface shares. The typed records (model), what a search and a write take (requests,
validation, filters), how recall scores and walks (ranking, fusion, associative, aggregate,
facets, glossary, text), what a memory means over time (meaning, temporal, lifecycle, linking,
write_order, summary), who may read it (visibility, actor) and a session's working memory.

None of these modules opens a store. Importing the package loads nothing: the CLI's parser
and the Python client import single modules of it (relation_types, validation, model) and
must stay light."""
