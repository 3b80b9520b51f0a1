/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Where what the model is sent goes, for the header, and the question asked before a
 * session that stayed on this computer goes to a server elsewhere. */
#define G_LOG_DOMAIN "Assay-Chat"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-conversation.h"
#include "assay-llm-provider.h"
#include "assay-model-choice.h"
#include "assay-model-destination.h"

/* How long the model settings must be still before a move is looked at: onboarding writes
 * three keys in a row, and Preferences' address entry one per key press. */
#define SETTLE_MS 400

/* A model server as the analyst would name it. */
typedef struct
{
  gboolean  configured;
  gboolean  local;
  gboolean  recorded;
  char     *host;     /* NULL: no server, or an address that cannot be read */
  char     *model;
} Place;

struct _AssayModelDestination
{
  GObject            parent_instance;

  GSettings         *settings;
  AssayConversation *conversation;
  guint              settle_source;

  gboolean           configured;
  gboolean           local;
  char              *host;
  char              *model;
  char              *title;
  char              *short_title;
  char              *description;
  const char        *icon_name;
  char              *pending_host;

  /* The setting last let through, which a "no" writes back. */
  gboolean           have_accepted;
  gboolean           accepted_local;
  char              *accepted_provider;
  char              *accepted_base_url;
  char              *accepted_model;
};

G_DEFINE_FINAL_TYPE (AssayModelDestination, assay_model_destination, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_CONFIGURED,
  PROP_LOCAL,
  PROP_HOST,
  PROP_MODEL,
  PROP_TITLE,
  PROP_SHORT_TITLE,
  PROP_DESCRIPTION,
  PROP_ICON_NAME,
  PROP_PENDING_HOST,
  N_PROPS
};
static GParamSpec *properties[N_PROPS];

static void
place_clear (Place *place)
{
  g_clear_pointer (&place->host, g_free);
  g_clear_pointer (&place->model, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Place, place_clear)

static void
assay_model_destination_read_provider (Place            *place,
                                       AssayLlmProvider *provider)
{
  place->configured = TRUE;
  place->local = assay_llm_provider_is_local (provider);
  place->host = assay_llm_url_dup_host (assay_llm_provider_get_base_url (provider));
}

/* Where the model setting sends things, read the way the conversation makes its provider:
 * Anthropic or anything OpenAI-compatible, the vendor's own server when base-url is empty. */
static void
assay_model_destination_read_setting (AssayModelDestination *self,
                                      Place                 *place)
{
  g_autofree char *provider = g_settings_get_string (self->settings, "provider");
  g_autofree char *base_url = NULL;
  g_autoptr(AssayLlmProvider) llm = NULL;
  const char *server;

  *place = (Place) { 0 };
  if (*provider == '\0')
    return;
  base_url = g_settings_get_string (self->settings, "base-url");
  server = *base_url != '\0' ? base_url : assay_model_choice_get_cloud_base_url (provider);
  llm = assay_llm_provider_new_for_name (g_str_equal (provider, "anthropic") ? "anthropic" : "openai",
                                         server, NULL, NULL);
  if (llm != NULL)
    assay_model_destination_read_provider (place, llm);
  place->configured = TRUE;
  place->model = g_settings_get_string (self->settings, "model");
  if (*place->model == '\0')
    {
      g_free (place->model);
      place->model = g_strdup (assay_model_choice_get_default (provider));
    }
}

/* What the next question uses: the conversation's own provider when it was given one. */
static void
assay_model_destination_read_current (AssayModelDestination *self,
                                      Place                 *place)
{
  const char *model = NULL;
  AssayLlmProvider *provider = assay_conversation_get_fixed_provider (self->conversation, &model);

  if (provider == NULL)
    {
      assay_model_destination_read_setting (self, place);
      return;
    }
  *place = (Place) { 0 };
  assay_model_destination_read_provider (place, provider);
  place->recorded = assay_conversation_get_recorded (self->conversation);
  place->model = g_strdup (model);
}

static void
assay_model_destination_set_string (AssayModelDestination  *self,
                                    char                  **field,
                                    const char             *value,
                                    guint                   prop)
{
  if (g_strcmp0 (*field, value) == 0)
    return;
  g_free (*field);
  *field = g_strdup (value);
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

static void
assay_model_destination_set_boolean (AssayModelDestination *self,
                                     gboolean              *field,
                                     gboolean               value,
                                     guint                  prop)
{
  if (*field == value)
    return;
  *field = value;
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

static void
assay_model_destination_update (AssayModelDestination *self)
{
  g_auto(Place) place = { 0 };
  g_autofree char *title = NULL;
  g_autofree char *description = NULL;
  const char *short_title;
  const char *model;
  const char *icon_name;

  assay_model_destination_read_current (self, &place);
  model = place.model != NULL ? place.model : "";
  if (!place.configured)
    {
      title = g_strdup (_("No Model Chosen"));
      short_title = title;
      description = g_strdup (_("No model is chosen yet: nothing is sent anywhere"));
    }
  else if (place.recorded)
    {
      model = _("Recorded demo");
      title = g_strdup (_("Stays on this computer"));
      /* Translators: the header's indicator where there is little room, next to an icon of
       * a computer. */
      short_title = _("This computer");
      description = g_strdup (_("Stays on this computer: the demo's answers are replayed from a recording, "
                                "and nothing is sent to a model"));
    }
  else if (place.local)
    {
      title = g_strdup (_("Stays on this computer"));
      short_title = _("This computer");
      /* Translators: the model's name, then its server ("localhost:11434"). */
      description = g_strdup_printf (_("Stays on this computer: the model %s runs here, at %s"),
                                     model, place.host != NULL ? place.host : "localhost");
    }
  else if (place.host != NULL)
    {
      /* Translators: where the model runs: "Sent to api.openai.com". */
      title = g_strdup_printf (_("Sent to %s"), place.host);
      short_title = place.host;
      /* Translators: the server's host, then the model's name. */
      description = g_strdup_printf (_("Sent to %s: your questions, the data summaries and the cells' outputs "
                                       "go to the model %s there"), place.host, model);
    }
  else
    {
      title = g_strdup (_("Sent to an unknown server"));
      /* Translators: the header's indicator where there is little room, next to an icon of
       * a server. */
      short_title = _("Unknown server");
      description = g_strdup (_("Sent to a server whose address cannot be read: check the model server's "
                                "address in Preferences"));
    }
  icon_name = place.configured && !place.local ? "assay-network-server-symbolic" : "assay-computer-symbolic";

  g_object_freeze_notify (G_OBJECT (self));
  assay_model_destination_set_boolean (self, &self->configured, place.configured, PROP_CONFIGURED);
  assay_model_destination_set_boolean (self, &self->local, place.configured && place.local, PROP_LOCAL);
  assay_model_destination_set_string (self, &self->host, place.host, PROP_HOST);
  assay_model_destination_set_string (self, &self->model, model, PROP_MODEL);
  assay_model_destination_set_string (self, &self->title, title, PROP_TITLE);
  assay_model_destination_set_string (self, &self->short_title, short_title, PROP_SHORT_TITLE);
  assay_model_destination_set_string (self, &self->description, description, PROP_DESCRIPTION);
  if (self->icon_name != icon_name)
    {
      self->icon_name = icon_name;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ICON_NAME]);
    }
  g_object_thaw_notify (G_OBJECT (self));
}

/* ---- the guard ------------------------------------------------------------------------- */

static void
assay_model_destination_set_pending (AssayModelDestination *self,
                                     const char            *host)
{
  assay_model_destination_set_string (self, &self->pending_host, host, PROP_PENDING_HOST);
}

static void
assay_model_destination_accept (AssayModelDestination *self,
                                gboolean               local)
{
  g_free (self->accepted_provider);
  g_free (self->accepted_base_url);
  g_free (self->accepted_model);
  self->accepted_provider = g_settings_get_string (self->settings, "provider");
  self->accepted_base_url = g_settings_get_string (self->settings, "base-url");
  self->accepted_model = g_settings_get_string (self->settings, "model");
  self->accepted_local = local;
  self->have_accepted = TRUE;
}

static gboolean
assay_model_destination_session_has_messages (AssayModelDestination *self)
{
  AssaySession *session = assay_conversation_get_session (self->conversation);
  GPtrArray *messages = session != NULL ? assay_session_get_messages (session) : NULL;

  return messages != NULL && messages->len > 0;
}

/* A move from this computer to a server elsewhere, with a session that has something to
 * send, waits for the analyst; anything else is let through. A setting that names no
 * readable server sends nothing, so it neither asks nor replaces the one to go back to. */
static void
assay_model_destination_check (AssayModelDestination *self)
{
  g_auto(Place) place = { 0 };
  const char *model = NULL;

  g_clear_handle_id (&self->settle_source, g_source_remove);
  assay_model_destination_read_setting (self, &place);
  if (!place.configured || (!place.local && place.host == NULL))
    {
      assay_model_destination_set_pending (self, NULL);
      return;
    }
  if (place.local || !self->have_accepted || !self->accepted_local ||
      assay_conversation_get_fixed_provider (self->conversation, &model) != NULL ||
      !assay_model_destination_session_has_messages (self))
    {
      assay_model_destination_accept (self, place.local);
      assay_model_destination_set_pending (self, NULL);
      return;
    }
  assay_model_destination_set_pending (self, place.host);
}

static gboolean
assay_model_destination_settled_cb (gpointer data)
{
  AssayModelDestination *self = data;

  self->settle_source = 0;
  assay_model_destination_check (self);
  return G_SOURCE_REMOVE;
}

static void
assay_model_destination_settings_changed_cb (AssayModelDestination *self,
                                             const char            *key)
{
  if (!g_str_equal (key, "provider") && !g_str_equal (key, "base-url") && !g_str_equal (key, "model"))
    return;
  assay_model_destination_update (self);
  g_clear_handle_id (&self->settle_source, g_source_remove);
  self->settle_source = g_timeout_add (SETTLE_MS, assay_model_destination_settled_cb, self);
}

/* Another session, or the conversation given a provider of its own (or none again). */
static void
assay_model_destination_conversation_changed_cb (AssayModelDestination *self)
{
  assay_model_destination_update (self);
  assay_model_destination_check (self);
}

void
assay_model_destination_check_now (AssayModelDestination *self)
{
  g_return_if_fail (ASSAY_IS_MODEL_DESTINATION (self));
  if (self->settle_source != 0)
    assay_model_destination_check (self);
}

void
assay_model_destination_confirm (AssayModelDestination *self,
                                 gboolean               send)
{
  g_autoptr(GSettingsBackend) backend = NULL;
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autoptr(GSettings) batch = NULL;
  g_autofree char *path = NULL;

  g_return_if_fail (ASSAY_IS_MODEL_DESTINATION (self));
  if (self->pending_host == NULL)
    return;
  if (send)
    {
      assay_model_destination_accept (self, FALSE);
      assay_model_destination_set_pending (self, NULL);
      return;
    }
  /* The three keys go back together: the conversation and the header never see a mix. */
  g_object_get (self->settings, "backend", &backend, "settings-schema", &schema, "path", &path, NULL);
  batch = g_settings_new_full (schema, backend, path);
  g_settings_delay (batch);
  g_settings_set_string (batch, "provider", self->accepted_provider);
  g_settings_set_string (batch, "base-url", self->accepted_base_url);
  g_settings_set_string (batch, "model", self->accepted_model);
  g_settings_apply (batch);
  assay_model_destination_set_pending (self, NULL);
}

/* ---- getters -------------------------------------------------------------------------------- */

gboolean
assay_model_destination_get_configured (AssayModelDestination *self)
{
  g_return_val_if_fail (ASSAY_IS_MODEL_DESTINATION (self), FALSE);
  return self->configured;
}

gboolean
assay_model_destination_get_local (AssayModelDestination *self)
{
  g_return_val_if_fail (ASSAY_IS_MODEL_DESTINATION (self), FALSE);
  return self->local;
}

const char *
assay_model_destination_get_host (AssayModelDestination *self)
{
  g_return_val_if_fail (ASSAY_IS_MODEL_DESTINATION (self), NULL);
  return self->host;
}

const char *
assay_model_destination_get_model (AssayModelDestination *self)
{
  g_return_val_if_fail (ASSAY_IS_MODEL_DESTINATION (self), NULL);
  return self->model;
}

const char *
assay_model_destination_get_title (AssayModelDestination *self)
{
  g_return_val_if_fail (ASSAY_IS_MODEL_DESTINATION (self), NULL);
  return self->title;
}

const char *
assay_model_destination_get_description (AssayModelDestination *self)
{
  g_return_val_if_fail (ASSAY_IS_MODEL_DESTINATION (self), NULL);
  return self->description;
}

const char *
assay_model_destination_get_icon_name (AssayModelDestination *self)
{
  g_return_val_if_fail (ASSAY_IS_MODEL_DESTINATION (self), NULL);
  return self->icon_name;
}

const char *
assay_model_destination_get_pending_host (AssayModelDestination *self)
{
  g_return_val_if_fail (ASSAY_IS_MODEL_DESTINATION (self), NULL);
  return self->pending_host;
}

/* ---- GObject ------------------------------------------------------------------------------- */

static void
assay_model_destination_get_property (GObject    *object,
                                      guint       prop_id,
                                      GValue     *value,
                                      GParamSpec *pspec)
{
  AssayModelDestination *self = ASSAY_MODEL_DESTINATION (object);

  switch (prop_id)
    {
    case PROP_CONFIGURED:
      g_value_set_boolean (value, self->configured);
      break;
    case PROP_LOCAL:
      g_value_set_boolean (value, self->local);
      break;
    case PROP_HOST:
      g_value_set_string (value, self->host);
      break;
    case PROP_MODEL:
      g_value_set_string (value, self->model);
      break;
    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    case PROP_SHORT_TITLE:
      g_value_set_string (value, self->short_title);
      break;
    case PROP_DESCRIPTION:
      g_value_set_string (value, self->description);
      break;
    case PROP_ICON_NAME:
      g_value_set_string (value, self->icon_name);
      break;
    case PROP_PENDING_HOST:
      g_value_set_string (value, self->pending_host);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_model_destination_dispose (GObject *object)
{
  AssayModelDestination *self = ASSAY_MODEL_DESTINATION (object);

  g_clear_handle_id (&self->settle_source, g_source_remove);
  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  if (self->conversation != NULL)
    g_signal_handlers_disconnect_by_data (self->conversation, self);
  g_clear_object (&self->settings);
  g_clear_object (&self->conversation);
  G_OBJECT_CLASS (assay_model_destination_parent_class)->dispose (object);
}

static void
assay_model_destination_finalize (GObject *object)
{
  AssayModelDestination *self = ASSAY_MODEL_DESTINATION (object);

  g_free (self->host);
  g_free (self->model);
  g_free (self->title);
  g_free (self->short_title);
  g_free (self->description);
  g_free (self->pending_host);
  g_free (self->accepted_provider);
  g_free (self->accepted_base_url);
  g_free (self->accepted_model);
  G_OBJECT_CLASS (assay_model_destination_parent_class)->finalize (object);
}

static void
assay_model_destination_class_init (AssayModelDestinationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = assay_model_destination_dispose;
  object_class->finalize = assay_model_destination_finalize;
  object_class->get_property = assay_model_destination_get_property;

  properties[PROP_CONFIGURED] = g_param_spec_boolean ("configured", NULL, NULL, FALSE, ro);
  properties[PROP_LOCAL] = g_param_spec_boolean ("local", NULL, NULL, FALSE, ro);
  properties[PROP_HOST] = g_param_spec_string ("host", NULL, NULL, NULL, ro);
  properties[PROP_MODEL] = g_param_spec_string ("model", NULL, NULL, NULL, ro);
  properties[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, ro);
  properties[PROP_SHORT_TITLE] = g_param_spec_string ("short-title", NULL, NULL, NULL, ro);
  properties[PROP_DESCRIPTION] = g_param_spec_string ("description", NULL, NULL, NULL, ro);
  properties[PROP_ICON_NAME] = g_param_spec_string ("icon-name", NULL, NULL, NULL, ro);
  properties[PROP_PENDING_HOST] = g_param_spec_string ("pending-host", NULL, NULL, NULL, ro);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
assay_model_destination_init (AssayModelDestination *self)
{
}

AssayModelDestination *
assay_model_destination_new (GSettings         *settings,
                             AssayConversation *conversation)
{
  AssayModelDestination *self;
  g_auto(Place) place = { 0 };

  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (conversation), NULL);

  self = g_object_new (ASSAY_TYPE_MODEL_DESTINATION, NULL);
  self->settings = g_object_ref (settings);
  self->conversation = g_object_ref (conversation);
  g_signal_connect_swapped (settings, "changed", G_CALLBACK (assay_model_destination_settings_changed_cb), self);
  g_signal_connect_swapped (conversation, "notify::fixed-provider",
                            G_CALLBACK (assay_model_destination_conversation_changed_cb), self);
  g_signal_connect_swapped (conversation, "notify::recorded",
                            G_CALLBACK (assay_model_destination_conversation_changed_cb), self);
  g_signal_connect_swapped (conversation, "notify::session",
                            G_CALLBACK (assay_model_destination_conversation_changed_cb), self);
  assay_model_destination_update (self);
  /* What is set now is what a "no" goes back to. */
  assay_model_destination_read_setting (self, &place);
  if (place.configured && (place.local || place.host != NULL))
    assay_model_destination_accept (self, place.local);
  return self;
}
