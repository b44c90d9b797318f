package io.github.llmthrottle.client;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.llmthrottle.client.ClientSettings.ModelSettings;
import org.jspecify.annotations.Nullable;

/**
 * The names a request may give one configured model: its own, its aliases, either
 * followed by a snapshot date, and its deployments' qualified names (see
 * {@link ClientSettings#configuredModelOf(String)}).
 */
final class ModelNames {

    /**
     * The date a provider appends to a model's name for one snapshot of it:
     * {@code -YYYYMMDD} (Anthropic), {@code -YYYY-MM-DD} (OpenAI) or {@code @YYYYMMDD}
     * (Anthropic's models on Vertex AI).
     */
    private static final Pattern SNAPSHOT_DATE = Pattern.compile("(?:-\\d{8}|-\\d{4}-\\d{2}-\\d{2}|@\\d{8})$");

    private ModelNames() {
    }

    /**
     * The configured model that {@code model} names.
     * @param models the configured models by name
     * @param model a model name, as a request gives it
     * @return the configured model's name, or {@code model} when it names none
     */
    static String configuredModelOf(Map<String, ModelSettings> models, String model) {
        if (models.containsKey(model)) {
            return model;
        }
        int separator = model.lastIndexOf(DeploymentSettings.SEPARATOR);
        if (separator > 0 && isDeployment(models, model.substring(0, separator), model.substring(separator + 1))) {
            return model.substring(0, separator);
        }
        String aliased = aliasedModelOf(models, model);
        if (aliased != null) {
            return aliased;
        }
        Matcher date = SNAPSHOT_DATE.matcher(model);
        if (date.find() && date.start() > 0) {
            String undated = model.substring(0, date.start());
            if (models.containsKey(undated)) {
                return undated;
            }
            aliased = aliasedModelOf(models, undated);
            if (aliased != null) {
                return aliased;
            }
        }
        return model;
    }

    private static boolean isDeployment(Map<String, ModelSettings> models, String model, String deployment) {
        ModelSettings settings = models.get(model);
        return settings != null && settings.deployments().containsKey(deployment);
    }

    private static @Nullable String aliasedModelOf(Map<String, ModelSettings> models, String alias) {
        for (ModelSettings settings : models.values()) {
            if (settings.aliases().contains(alias)) {
                return settings.name();
            }
        }
        return null;
    }

}
