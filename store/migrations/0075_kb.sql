-- Knowledge base (spec 2 §2, §4.5): categories, articles with keyword search (PostgreSQL full text)
-- and semantic search (chunks with embeddings), and the durable queue that embeds published
-- articles. Choices: docs/decisions.md, "Knowledge base".

-- Keyword search: the `simple` parser (no stemming: English and Indonesian alike, no stop words),
-- with accents folded by `unaccent` where the server has it. A server without it still gets the
-- same configuration name (plain `simple`), so the store's SQL is one.
DO $$
BEGIN
  BEGIN
    CREATE EXTENSION IF NOT EXISTS unaccent;
  EXCEPTION WHEN others THEN
    RAISE NOTICE 'unaccent is not available: knowledge base search keeps accents';
  END;
  CREATE TEXT SEARCH CONFIGURATION kb_text (COPY = simple);
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'unaccent') THEN
    ALTER TEXT SEARCH CONFIGURATION kb_text ALTER MAPPING FOR hword, hword_part, word WITH unaccent, simple;
  END IF;
END $$;

CREATE TABLE kb_categories (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name         text NOT NULL,
  description  text NOT NULL DEFAULT '',
  position     integer NOT NULL DEFAULT 0,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX kb_categories_name ON kb_categories (workspace_id, lower(name));

CREATE TABLE kb_articles (
  id               integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id     integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  category_id      integer REFERENCES kb_categories (id) ON DELETE SET NULL,
  title            text NOT NULL,
  body             text NOT NULL DEFAULT '',
  visibility       text NOT NULL DEFAULT 'internal' CHECK (visibility IN ('internal', 'public')),
  status           text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published')),
  tags             text[] NOT NULL DEFAULT '{}',
  -- Empty = every team (spec 2 §1 rule 4). A deleted team's id stays: its articles stay hidden
  -- from the other teams rather than opening to everyone.
  team_ids         integer[] NOT NULL DEFAULT '{}',
  -- Title (weight A), tags (B) and body (C) for keyword search; written by store/kbArticles.ts.
  search_vector    tsvector NOT NULL DEFAULT ''::tsvector,
  -- Semantic processing: none (draft, or no AI provider/plan), pending, processing, done, failed.
  embedding_status text NOT NULL DEFAULT 'none'
                   CHECK (embedding_status IN ('none', 'pending', 'processing', 'done', 'failed')),
  embedding_error  text,
  chunk_count      integer NOT NULL DEFAULT 0,
  embedded_at      timestamptz,
  created_by       integer REFERENCES users (id) ON DELETE SET NULL,
  published_at     timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX kb_articles_list_idx ON kb_articles (workspace_id, updated_at DESC, id DESC);
CREATE INDEX kb_articles_category_idx ON kb_articles (category_id) WHERE category_id IS NOT NULL;
CREATE INDEX kb_articles_search_idx ON kb_articles USING gin (search_vector);

-- Pieces of a published article's title and body with their embeddings. `model` names the
-- embedding model that made them: chunks of another model are never compared with a query.
CREATE TABLE kb_chunks (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  article_id   integer NOT NULL REFERENCES kb_articles (id) ON DELETE CASCADE,
  position     integer NOT NULL,
  content      text NOT NULL,
  model        text NOT NULL,
  dims         integer NOT NULL,
  UNIQUE (article_id, position)
);
CREATE INDEX kb_chunks_workspace_idx ON kb_chunks (workspace_id, model);

-- The embedding column: pgvector's `vector` where the server has the extension (PGlite ships it),
-- else `real[]` with cosine similarity computed in SQL (store/kbEmbeddings.ts picks the query by
-- the column's type and says at start which one runs). No dimension is fixed: the operator picks
-- the model; every vector is stored unit-length.
DO $$
BEGIN
  BEGIN
    CREATE EXTENSION IF NOT EXISTS vector;
  EXCEPTION WHEN others THEN
    RAISE NOTICE 'pgvector is not available: knowledge base embeddings use real[]';
  END;
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') THEN
    ALTER TABLE kb_chunks ADD COLUMN embedding vector NOT NULL;
  ELSE
    ALTER TABLE kb_chunks ADD COLUMN embedding real[] NOT NULL;
  END IF;
END $$;

-- The durable embedding queue: one row per article waiting to be (re)processed. A node claims a
-- row by setting `lease_until` under SKIP LOCKED; a node that dies mid-article only delays it
-- until the lease runs out. `revision` grows on each request, so a result computed from an older
-- text is never stored over a newer request.
CREATE TABLE kb_embed_jobs (
  article_id   integer PRIMARY KEY REFERENCES kb_articles (id) ON DELETE CASCADE,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  revision     integer NOT NULL DEFAULT 1,
  attempts     integer NOT NULL DEFAULT 0,
  due_at       timestamptz NOT NULL DEFAULT now(),
  lease_until  timestamptz,
  requested_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX kb_embed_jobs_due_idx ON kb_embed_jobs (due_at);
