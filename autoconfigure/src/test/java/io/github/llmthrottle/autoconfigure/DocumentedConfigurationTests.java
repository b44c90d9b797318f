package io.github.llmthrottle.autoconfigure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Every {@code llm.throttle} example in the README and the configuration guide, bound as
 * an application would bind it, is valid configuration, and every model and deployment it
 * names exists after binding (YAML drops an empty {@code { }} entry altogether).
 */
class DocumentedConfigurationTests {

    private static final Pattern YAML_BLOCK = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL);

    private static final Pattern EMPTY_ENTRY = Pattern.compile("^\\s*([\\w.-]+):\\s*\\{\\s*\\}", Pattern.MULTILINE);

    @TestFactory
    List<DynamicTest> everyDocumentedExampleIsValidConfiguration() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (String document : List.of("README.md", "docs/configuration.md")) {
            String text = Files.readString(Path.of("..").resolve(document), StandardCharsets.UTF_8);
            Matcher block = YAML_BLOCK.matcher(text);
            int index = 0;
            while (block.find()) {
                String yaml = block.group(1);
                if (yaml.contains("llm.throttle")) {
                    tests.add(DynamicTest.dynamicTest(document + " example " + (++index), () -> check(yaml)));
                }
            }
        }
        assertThat(tests).hasSizeGreaterThanOrEqualTo(4);
        return tests;
    }

    private static void check(String yaml) throws IOException {
        assertThat(EMPTY_ENTRY.matcher(yaml).find())
            .as("an empty '{ }' entry, which YAML drops (give it a property):%n%s", yaml)
            .isFalse();
        List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("example",
                new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
        LlmThrottleProperties properties = new Binder(ConfigurationPropertySources.from(sources))
            .bind("llm.throttle", LlmThrottleProperties.class)
            .orElseGet(LlmThrottleProperties::new);
        assertThatNoException().as(yaml).isThrownBy(() -> ThrottleSettingsMapper.map(properties));
    }

}
