package io.github.llmthrottle.autoconfigure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Every {@code llm.throttle} example in the README and in every page under {@code docs},
 * bound as an application would bind it, is valid configuration, and every model and
 * deployment it names exists after binding (YAML drops an empty {@code { }} entry
 * altogether).
 */
class DocumentedConfigurationTests {

    private static final Path ROOT = Path.of("..");

    private static final Pattern YAML_BLOCK = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL);

    private static final Pattern EMPTY_ENTRY = Pattern.compile("^\\s*([\\w.-]+):\\s*\\{\\s*\\}", Pattern.MULTILINE);

    @TestFactory
    List<DynamicTest> everyDocumentedExampleIsValidConfiguration() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (String document : documents()) {
            String text = Files.readString(ROOT.resolve(document), StandardCharsets.UTF_8);
            Matcher block = YAML_BLOCK.matcher(text);
            int index = 0;
            while (block.find()) {
                String yaml = block.group(1);
                if (configuresLlmThrottle(yaml)) {
                    tests.add(DynamicTest.dynamicTest(document + " example " + (++index), () -> check(yaml)));
                }
            }
        }
        assertThat(tests).hasSizeGreaterThanOrEqualTo(8);
        return tests;
    }

    @Test
    void examplesAreReadFromTheReadmeAndEveryPageUnderDocs() throws IOException {
        assertThat(documents()).contains("README.md", "docs/guide/configuration.md", "docs/guide/throttled.md")
            .allMatch((document) -> document.endsWith(".md"));
    }

    @Test
    void examplesInEitherYamlFormAreFound() throws IOException {
        assertThat(configuresLlmThrottle("llm:\n  throttle:\n    store: redis\n")).isTrue();
        assertThat(configuresLlmThrottle("llm.throttle.clients.a.provider: openai\n")).isTrue();
        assertThat(configuresLlmThrottle("spring.ai.openai.base-url: https://api.openai.com/v1\n")).isFalse();
    }

    /**
     * Whether a YAML example sets any {@code llm.throttle} property, in whatever form.
     */
    private static boolean configuresLlmThrottle(String yaml) throws IOException {
        for (PropertySource<?> source : load(yaml)) {
            if (source instanceof EnumerablePropertySource<?> properties && Arrays.stream(properties.getPropertyNames())
                .anyMatch((name) -> name.startsWith("llm.throttle"))) {
                return true;
            }
        }
        return false;
    }

    private static List<PropertySource<?>> load(String yaml) throws IOException {
        return new YamlPropertySourceLoader().load("example",
                new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
    }

    /** The README and every markdown page under {@code docs}, relative to the project. */
    private static List<String> documents() throws IOException {
        List<String> documents = new ArrayList<>();
        documents.add("README.md");
        try (Stream<Path> pages = Files.walk(ROOT.resolve("docs"))) {
            pages.filter((page) -> page.toString().endsWith(".md"))
                .map((page) -> ROOT.relativize(page).toString().replace('\\', '/'))
                .sorted()
                .forEach(documents::add);
        }
        return documents;
    }

    private static void check(String yaml) throws IOException {
        assertThat(EMPTY_ENTRY.matcher(yaml).find())
            .as("an empty '{ }' entry, which YAML drops (give it a property):%n%s", yaml)
            .isFalse();
        List<PropertySource<?>> sources = load(yaml);
        LlmThrottleProperties properties = new Binder(ConfigurationPropertySources.from(sources))
            .bind("llm.throttle", LlmThrottleProperties.class)
            .orElseGet(LlmThrottleProperties::new);
        assertThatNoException().as(yaml).isThrownBy(() -> ThrottleSettingsMapper.map(properties));
        assertThatNoException().as(yaml).isThrownBy(() -> BudgetSettingsMapper.map(properties));
    }

}
