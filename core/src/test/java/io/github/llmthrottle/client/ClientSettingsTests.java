package io.github.llmthrottle.client;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.client.ClientSettings.ModelSettings;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.provider.ProviderDialect;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which configured model a request's model name counts against.
 */
class ClientSettingsTests {

    private static final ModelLimits LIMITS = new ModelLimits(50L, null, null, null);

    private final ClientSettings settings = ClientSettings
        .defaults("anthropic", ProviderDialect.ANTHROPIC, URI.create("https://api.anthropic.com"))
        .withModels(models());

    private static Map<String, ModelSettings> models() {
        Map<String, ModelSettings> models = new LinkedHashMap<>();
        models.put("claude-sonnet-4-5",
                new ModelSettings("claude-sonnet-4-5", LIMITS, List.of(), 200_000L, Map.of(), List.of("sonnet")));
        models.put("gpt-4o", new ModelSettings("gpt-4o", LIMITS, List.of()));
        models.put("claude-3-5-haiku-20241022", new ModelSettings("claude-3-5-haiku-20241022", LIMITS, List.of()));
        models.put("claude-opus-4-7", new ModelSettings("claude-opus-4-7", LIMITS, List.of(), null,
                Map.of("east", new DeploymentSettings("east", null, null, Map.of(), LIMITS))));
        return models;
    }

    @Test
    void aDatedSnapshotOfAConfiguredModelCountsAgainstIt() {
        assertThat(this.settings.configuredModelOf("claude-sonnet-4-5-20250929")).isEqualTo("claude-sonnet-4-5");
        assertThat(this.settings.configuredModelOf("gpt-4o-2024-08-06")).isEqualTo("gpt-4o");
        assertThat(this.settings.configuredModelOf("claude-sonnet-4-5@20250929")).isEqualTo("claude-sonnet-4-5");
    }

    @Test
    void anAliasAndAnAliasesSnapshotCountAgainstItsModel() {
        assertThat(this.settings.configuredModelOf("sonnet")).isEqualTo("claude-sonnet-4-5");
        assertThat(this.settings.configuredModelOf("sonnet-20250929")).isEqualTo("claude-sonnet-4-5");
    }

    @Test
    void aConfiguredNameIsItselfEvenWhenItEndsInADate() {
        assertThat(this.settings.configuredModelOf("claude-3-5-haiku-20241022")).isEqualTo("claude-3-5-haiku-20241022");
        assertThat(this.settings.configuredModelOf("gpt-4o")).isEqualTo("gpt-4o");
    }

    @Test
    void otherNamesAreTheirOwn() {
        assertThat(this.settings.configuredModelOf("gpt-4o-mini")).isEqualTo("gpt-4o-mini");
        assertThat(this.settings.configuredModelOf("gpt-4o-mini-2024-07-18")).isEqualTo("gpt-4o-mini-2024-07-18");
        assertThat(this.settings.configuredModelOf("claude-sonnet-4-5-2025")).isEqualTo("claude-sonnet-4-5-2025");
        assertThat(this.settings.configuredModelOf("-20250929")).isEqualTo("-20250929");
    }

    @Test
    void aRequestNamingADeploymentIsACallOfItsModel() {
        assertThat(this.settings.configuredModelOf("claude-opus-4-7@east")).isEqualTo("claude-opus-4-7");
        assertThat(this.settings.configuredModelOf("claude-opus-4-7@west")).isEqualTo("claude-opus-4-7@west");
    }

}
