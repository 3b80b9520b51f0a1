/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Data"

#include "config.h"

#include <math.h>
#include <string.h>

#include "assay-column-profile.h"
#include "assay-data-text.h"

#define HLL_BITS      12
#define HLL_REGISTERS (1u << HLL_BITS)
#define RESERVOIR     1024

typedef struct
{
  guint64     hash;
  const char *text;     /* NULL: empty slot */
  guint32     len;      /* length of the whole value, for comparisons */
  guint32     text_len; /* what is kept of it */
  guint32     owned;    /* text lives in the profile's string chunk */
  guint64     count;
} Entry;

typedef struct
{
  double  min, max, sum;
  guint64 n;
  double *sample;
  guint   n_sample;
} Stats;

struct _AssayColumnProfile
{
  guint64       nulls;
  guint64       values;
  guint         kinds;           /* what every non-null cell so far could be */
  guint         flags;           /* AssayValueFlags seen */
  guint         slash_orders;    /* MDY_VALID | DMY_VALID that held for every a/b/yyyy cell */
  Stats         primary;         /* numbers, or dates read month first */
  Stats         day_first;       /* a/b/yyyy read day first */
  guint64       rng;

  Entry        *table;
  guint         table_size;      /* a power of two */
  guint         table_count;
  guint         bound;
  gboolean      overflow;
  guint8       *hll;
  GStringChunk *chunk;

  char         *samples[ASSAY_PROFILE_SAMPLES + 1];
  guint64       sample_hashes[ASSAY_PROFILE_SAMPLES];
  guint         n_samples;

  /* After finish. */
  gboolean      finished;
  AssayColumnType type;
  gboolean      use_day_first;
  gboolean      ambiguous;
  guint64       distinct;
  gboolean      distinct_exact;
  char         *top[ASSAY_PROFILE_TOP_VALUES];
  guint64       top_counts[ASSAY_PROFILE_TOP_VALUES];
  guint         n_top;
};

AssayColumnProfile *
assay_column_profile_new (guint exact_distinct_bound)
{
  AssayColumnProfile *self = g_new0 (AssayColumnProfile, 1);

  self->kinds = ASSAY_VALUE_ANY;
  self->slash_orders = ASSAY_VALUE_MDY_VALID | ASSAY_VALUE_DMY_VALID;
  self->primary.min = self->day_first.min = INFINITY;
  self->primary.max = self->day_first.max = -INFINITY;
  self->rng = G_GUINT64_CONSTANT (0x2545F4914F6CDD1D);
  self->bound = MAX (exact_distinct_bound, 16);
  self->table_size = 16;
  self->table = g_new0 (Entry, self->table_size);
  self->chunk = g_string_chunk_new (4096);
  return self;
}

void
assay_column_profile_free (AssayColumnProfile *self)
{
  if (self == NULL)
    return;
  g_free (self->table);
  g_free (self->hll);
  g_free (self->primary.sample);
  g_free (self->day_first.sample);
  g_string_chunk_free (self->chunk);
  for (guint i = 0; i < self->n_samples; i++)
    g_free (self->samples[i]);
  for (guint i = 0; i < self->n_top; i++)
    g_free (self->top[i]);
  g_free (self);
}

static inline guint64
assay_column_profile_next_random (AssayColumnProfile *self)
{
  self->rng ^= self->rng << 13;
  self->rng ^= self->rng >> 7;
  self->rng ^= self->rng << 17;
  return self->rng;
}

static inline void
assay_column_profile_stats_add (AssayColumnProfile *self,
                                Stats              *stats,
                                double              x)
{
  if (x < stats->min)
    stats->min = x;
  if (x > stats->max)
    stats->max = x;
  stats->sum += x;
  stats->n++;
  /* A reservoir sample for the histogram. */
  if (stats->n_sample < RESERVOIR)
    {
      if (stats->sample == NULL)
        stats->sample = g_new (double, RESERVOIR);
      stats->sample[stats->n_sample++] = x;
    }
  else
    {
      guint64 j = (guint64) (((unsigned __int128) assay_column_profile_next_random (self) * stats->n) >> 64);
      if (j < RESERVOIR)
        stats->sample[j] = x;
    }
}

static inline void
assay_column_profile_hll_add (guint8  *hll,
                              guint64  hash)
{
  guint index = hash >> (64 - HLL_BITS);
  guint64 rest = (hash << HLL_BITS) | (G_GUINT64_CONSTANT (1) << (HLL_BITS - 1));
  guint8 rank = (guint8) (__builtin_clzll (rest) + 1);

  if (rank > hll[index])
    hll[index] = rank;
}

static double
assay_column_profile_hll_estimate (const guint8 *hll)
{
  double m = HLL_REGISTERS;
  double sum = 0;
  guint zeros = 0;
  double estimate;

  for (guint i = 0; i < HLL_REGISTERS; i++)
    {
      sum += ldexp (1.0, -hll[i]);
      zeros += hll[i] == 0;
    }
  estimate = 0.7213 / (1 + 1.079 / m) * m * m / sum;
  if (estimate <= 2.5 * m && zeros > 0)
    estimate = m * log (m / zeros);
  return estimate;
}

static void
assay_column_profile_table_grow (AssayColumnProfile *self)
{
  guint old_size = self->table_size;
  Entry *old = self->table;

  self->table_size *= 2;
  self->table = g_new0 (Entry, self->table_size);
  for (guint i = 0; i < old_size; i++)
    if (old[i].text != NULL)
      {
        guint slot = old[i].hash & (self->table_size - 1);
        while (self->table[slot].text != NULL)
          slot = (slot + 1) & (self->table_size - 1);
        self->table[slot] = old[i];
      }
  g_free (old);
}

#define KEPT_AFTER_OVERFLOW 1024

static int
assay_column_profile_compare_counts_descending (gconstpointer a,
                                                gconstpointer b)
{
  const Entry *x = a, *y = b;
  return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

/* Past the bound the distinct count comes from HyperLogLog. Only the most frequent values
 * stay in the table, to keep counting the likely top values in a table small enough for
 * the cache: a big table missed on every new value is what made profiling slow. */
static void
assay_column_profile_start_estimate (AssayColumnProfile *self)
{
  Entry *old = self->table;
  guint n = 0;

  self->overflow = TRUE;
  self->hll = g_new0 (guint8, HLL_REGISTERS);
  for (guint i = 0; i < self->table_size; i++)
    if (old[i].text != NULL)
      {
        assay_column_profile_hll_add (self->hll, old[i].hash);
        old[n++] = old[i];
      }
  qsort (old, n, sizeof (Entry), assay_column_profile_compare_counts_descending);
  n = MIN (n, KEPT_AFTER_OVERFLOW);
  self->table_size = KEPT_AFTER_OVERFLOW * 2;
  self->table = g_new0 (Entry, self->table_size);
  self->table_count = 0;
  for (guint i = 0; i < n; i++)
    {
      guint slot = old[i].hash & (self->table_size - 1);
      while (self->table[slot].text != NULL)
        slot = (slot + 1) & (self->table_size - 1);
      self->table[slot] = old[i];
      self->table_count++;
    }
  g_free (old);
}

/* Counts one occurrence of a value; STABLE text may be kept by pointer. */
static void
assay_column_profile_count_value (AssayColumnProfile *self,
                                  guint64             hash,
                                  const char         *s,
                                  gsize               len,
                                  gsize               text_len,
                                  gboolean            stable,
                                  guint64             count)
{
  guint mask = self->table_size - 1;
  guint slot = hash & mask;
  Entry *e;

  if (self->overflow)
    {
      assay_column_profile_hll_add (self->hll, hash);
      /* Only text columns show top values: typed ones need nothing more than the estimate. */
      if (self->kinds != 0)
        return;
    }
  for (;;)
    {
      e = &self->table[slot];
      if (e->text == NULL)
        break;
      if (e->hash == hash && e->len == MIN (len, G_MAXUINT32))
        {
          e->count += count;
          return;
        }
      slot = (slot + 1) & mask;
    }
  if (self->overflow)
    return;
  if (self->table_count >= self->bound)
    {
      assay_column_profile_start_estimate (self);
      assay_column_profile_hll_add (self->hll, hash);
      return;
    }
  e->hash = hash;
  e->len = MIN (len, G_MAXUINT32);
  e->count = count;
  if (stable)
    {
      e->text = s;
      e->text_len = MIN (text_len, G_MAXUINT32);
    }
  else
    {
      /* Keep at most 256 bytes of a copied value: it only serves as a top value. */
      e->text = g_string_chunk_insert_len (self->chunk, s, MIN (text_len, 256));
      e->text_len = MIN (text_len, 256);
      e->owned = TRUE;
    }
  self->table_count++;
  if (self->table_count * 10 > self->table_size * 6)
    assay_column_profile_table_grow (self);
}

void
assay_column_profile_add_null (AssayColumnProfile *self)
{
  self->nulls++;
}

void
assay_column_profile_add (AssayColumnProfile     *self,
                          const char             *s,
                          gsize                   len,
                          gboolean                stable,
                          const AssayValueFormat *format)
{
  guint64 hash;

  if (len == 0 || (len <= 8 && assay_value_is_null (s, len)))
    {
      self->nulls++;
      return;
    }
  self->values++;
  hash = assay_data_hash (s, len);
  assay_column_profile_count_value (self, hash, s, len, len, stable, 1);

  if (G_UNLIKELY (self->n_samples < ASSAY_PROFILE_SAMPLES))
    {
      gboolean seen = FALSE;
      for (guint i = 0; i < self->n_samples; i++)
        seen = seen || self->sample_hashes[i] == hash;
      if (!seen)
        {
          self->sample_hashes[self->n_samples] = hash;
          self->samples[self->n_samples++] = g_strndup (s, MIN (len, 200));
        }
    }

  if (self->kinds != 0)
    {
      AssayValue value;
      guint kinds = assay_value_classify (s, len, format, self->kinds, &value);

      self->kinds &= kinds;
      if (self->kinds == 0)
        return;
      self->flags |= value.flags;
      if (value.flags & ASSAY_VALUE_SLASH_DATE)
        {
          self->slash_orders &= value.flags & (ASSAY_VALUE_MDY_VALID | ASSAY_VALUE_DMY_VALID);
          if (value.flags & ASSAY_VALUE_MDY_VALID)
            assay_column_profile_stats_add (self, &self->primary, value.number);
          if (value.flags & ASSAY_VALUE_DMY_VALID)
            assay_column_profile_stats_add (self, &self->day_first, value.number_dmy);
        }
      else
        {
          assay_column_profile_stats_add (self, &self->primary, value.number);
          if (kinds & (ASSAY_VALUE_DATE | ASSAY_VALUE_DATETIME))
            assay_column_profile_stats_add (self, &self->day_first, value.number);
        }
    }
}

static void
assay_column_profile_stats_merge (Stats       *into,
                                  const Stats *from)
{
  guint64 total = into->n + from->n;

  if (from->n == 0)
    return;
  into->min = MIN (into->min, from->min);
  into->max = MAX (into->max, from->max);
  into->sum += from->sum;
  /* Mix the reservoirs in proportion to how many values each stands for. */
  if (from->n_sample > 0)
    {
      guint keep_from = into->n == 0 ? from->n_sample
                                     : (guint) MIN ((double) RESERVOIR * from->n / total, from->n_sample);
      if (into->sample == NULL)
        into->sample = g_new (double, RESERVOIR);
      for (guint i = 0; i < keep_from; i++)
        {
          if (into->n_sample < RESERVOIR)
            into->sample[into->n_sample++] = from->sample[i];
          else
            into->sample[(i * 7919u) % RESERVOIR] = from->sample[i];
        }
    }
  into->n = total;
}

void
assay_column_profile_merge (AssayColumnProfile *self,
                            AssayColumnProfile *other)
{
  self->nulls += other->nulls;
  self->values += other->values;
  self->kinds &= other->values > 0 ? other->kinds : ASSAY_VALUE_ANY;
  self->flags |= other->flags;
  self->slash_orders &= other->slash_orders;
  assay_column_profile_stats_merge (&self->primary, &other->primary);
  assay_column_profile_stats_merge (&self->day_first, &other->day_first);

  for (guint i = 0; i < other->table_size; i++)
    {
      Entry *e = &other->table[i];
      if (e->text != NULL)
        assay_column_profile_count_value (self, e->hash, e->text, e->len, e->text_len, !e->owned, e->count);
    }
  if (other->overflow)
    {
      if (!self->overflow)
        assay_column_profile_start_estimate (self);
      for (guint i = 0; i < HLL_REGISTERS; i++)
        self->hll[i] = MAX (self->hll[i], other->hll[i]);
    }
  for (guint i = 0; i < other->n_samples && self->n_samples < ASSAY_PROFILE_SAMPLES; i++)
    {
      gboolean seen = FALSE;
      for (guint j = 0; j < self->n_samples; j++)
        seen = seen || self->sample_hashes[j] == other->sample_hashes[i];
      if (!seen)
        {
          self->sample_hashes[self->n_samples] = other->sample_hashes[i];
          self->samples[self->n_samples++] = g_strdup (other->samples[i]);
        }
    }
}

void
assay_column_profile_finish (AssayColumnProfile *self,
                             gboolean            day_first_hint)
{
  guint kinds = self->values > 0 ? self->kinds : 0;

  if (self->finished)
    return;
  self->finished = TRUE;

  if (kinds & ASSAY_VALUE_INTEGER)
    self->type = ASSAY_COLUMN_INTEGER;
  else if (kinds & ASSAY_VALUE_FLOAT)
    self->type = ASSAY_COLUMN_FLOAT;
  else if (kinds & ASSAY_VALUE_BOOLEAN)
    self->type = ASSAY_COLUMN_BOOLEAN;
  else if (kinds & (ASSAY_VALUE_DATE | ASSAY_VALUE_DATETIME))
    {
      self->type = (kinds & ASSAY_VALUE_DATE) ? ASSAY_COLUMN_DATE : ASSAY_COLUMN_DATETIME;
      if (self->flags & ASSAY_VALUE_SLASH_DATE)
        {
          guint orders = self->slash_orders;
          if (orders == 0)
            self->type = ASSAY_COLUMN_STRING;
          else if (orders == ASSAY_VALUE_DMY_VALID)
            self->use_day_first = TRUE;
          else if (orders == (ASSAY_VALUE_MDY_VALID | ASSAY_VALUE_DMY_VALID))
            {
              self->ambiguous = TRUE;
              self->use_day_first = day_first_hint;
            }
        }
      else if (self->flags & ASSAY_VALUE_DOT_DATE)
        self->use_day_first = TRUE;
    }
  else
    self->type = ASSAY_COLUMN_STRING;

  if (self->overflow)
    {
      self->distinct = (guint64) llround (assay_column_profile_hll_estimate (self->hll));
      self->distinct = MAX (self->distinct, self->table_count);
      self->distinct = MIN (self->distinct, self->values);
      self->distinct_exact = FALSE;
    }
  else
    {
      self->distinct = self->table_count;
      self->distinct_exact = TRUE;
    }

  /* The most frequent values, copied out of the text. */
  for (guint i = 0; i < self->table_size; i++)
    {
      Entry *e = &self->table[i];
      guint at;

      if (e->text == NULL || e->count < 1)
        continue;
      at = self->n_top;
      while (at > 0 && self->top_counts[at - 1] < e->count)
        at--;
      if (at >= ASSAY_PROFILE_TOP_VALUES)
        continue;
      if (self->n_top == ASSAY_PROFILE_TOP_VALUES)
        g_free (self->top[--self->n_top]);
      memmove (&self->top[at + 1], &self->top[at], (self->n_top - at) * sizeof (char *));
      memmove (&self->top_counts[at + 1], &self->top_counts[at], (self->n_top - at) * sizeof (guint64));
      self->top[at] = g_strndup (e->text, MIN (e->text_len, 256));
      self->top_counts[at] = e->count;
      self->n_top++;
    }
  g_clear_pointer (&self->table, g_free);
  self->table_size = 0;
  g_string_chunk_clear (self->chunk);
}

AssayColumnType
assay_column_profile_get_type_kind (AssayColumnProfile *self)
{
  return self->type;
}

const char *
assay_column_type_to_string (AssayColumnType type)
{
  static const char *const names[] = { "string", "integer", "float", "boolean", "date", "datetime" };
  return names[type];
}

guint64
assay_column_profile_get_nulls (AssayColumnProfile *self)
{
  return self->nulls;
}

guint64
assay_column_profile_get_distinct (AssayColumnProfile *self,
                                   gboolean           *exact)
{
  if (exact != NULL)
    *exact = self->distinct_exact;
  return self->distinct;
}

guint
assay_column_profile_get_value_flags (AssayColumnProfile *self)
{
  return self->flags;
}

gboolean
assay_column_profile_is_day_first (AssayColumnProfile *self)
{
  return self->use_day_first;
}

gboolean
assay_column_profile_is_ambiguous (AssayColumnProfile *self)
{
  return self->ambiguous;
}

const char * const *
assay_column_profile_get_samples (AssayColumnProfile *self)
{
  return (const char * const *) self->samples;
}

static int
assay_column_profile_compare_doubles (gconstpointer a,
                                      gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static JsonNode *
assay_column_profile_number_node (AssayColumnProfile *self,
                                  double              x,
                                  gboolean            as_integer)
{
  JsonNode *node = json_node_new (JSON_NODE_VALUE);

  if (!isfinite (x))
    {
      json_node_init_null (node);
      return node;
    }
  if (self->type == ASSAY_COLUMN_DATE || self->type == ASSAY_COLUMN_DATETIME)
    {
      g_autofree char *text = assay_value_format_time (x, self->type == ASSAY_COLUMN_DATETIME);
      if (text == NULL)
        json_node_init_null (node);
      else
        json_node_set_string (node, text);
    }
  else if (as_integer && fabs (x) < 9e15)
    json_node_set_int (node, (gint64) x);
  else
    json_node_set_double (node, x);
  return node;
}

JsonObject *
assay_column_profile_to_json (AssayColumnProfile *self,
                              const char         *name)
{
  JsonObject *object = json_object_new ();
  g_autofree char *clean_name = assay_data_sanitize (name, -1, 200);
  JsonArray *top = json_array_new ();
  JsonArray *histogram = json_array_new ();
  Stats *stats = self->use_day_first ? &self->day_first : &self->primary;
  gboolean numeric = self->type != ASSAY_COLUMN_STRING && self->type != ASSAY_COLUMN_BOOLEAN;

  json_object_set_string_member (object, "name", clean_name);
  json_object_set_string_member (object, "type", assay_column_type_to_string (self->type));
  json_object_set_int_member (object, "nulls", self->nulls);
  json_object_set_int_member (object, "distinct", self->distinct);
  json_object_set_boolean_member (object, "distinct_exact", self->distinct_exact);

  if (numeric && stats->n > 0)
    {
      json_object_set_member (object,
                              "min",
                              assay_column_profile_number_node (self, stats->min, self->type == ASSAY_COLUMN_INTEGER));
      json_object_set_member (object,
                              "max",
                              assay_column_profile_number_node (self, stats->max, self->type == ASSAY_COLUMN_INTEGER));
      json_object_set_member (object,
                              "mean",
                              assay_column_profile_number_node (self, stats->sum / stats->n, FALSE));
    }
  else
    {
      json_object_set_null_member (object, "min");
      json_object_set_null_member (object, "max");
      json_object_set_null_member (object, "mean");
    }

  if (!numeric)
    for (guint i = 0; i < self->n_top; i++)
      {
        JsonObject *entry = json_object_new ();
        g_autofree char *clean = assay_data_sanitize (self->top[i], -1, 80);

        json_object_set_string_member (entry, "value", clean);
        json_object_set_int_member (entry, "count", self->top_counts[i]);
        json_array_add_object_element (top, entry);
      }
  json_object_set_array_member (object, "top", top);

  if (numeric && stats->n_sample > 0 && isfinite (stats->min) && isfinite (stats->max))
    {
      guint64 bins[ASSAY_PROFILE_HISTOGRAM_BINS] = { 0 };
      double width = (stats->max - stats->min) / ASSAY_PROFILE_HISTOGRAM_BINS;
      g_autofree double *sorted = g_memdup2 (stats->sample, stats->n_sample * sizeof (double));

      qsort (sorted, stats->n_sample, sizeof (double), assay_column_profile_compare_doubles);
      for (guint i = 0; i < stats->n_sample; i++)
        {
          guint b = width > 0 ? (guint) ((sorted[i] - stats->min) / width) : 0;
          bins[MIN (b, ASSAY_PROFILE_HISTOGRAM_BINS - 1)]++;
        }
      for (guint i = 0; i < ASSAY_PROFILE_HISTOGRAM_BINS; i++)
        json_array_add_int_element (histogram,
                                    (gint64) llround ((double) bins[i] * stats->n / stats->n_sample));
    }
  json_object_set_array_member (object, "histogram", histogram);
  return object;
}
