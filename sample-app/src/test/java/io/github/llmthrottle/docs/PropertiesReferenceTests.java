package io.github.llmthrottle.docs;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.github.llmthrottle.autoconfigure.ClientProperties;
import io.github.llmthrottle.autoconfigure.LlmThrottleProperties;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.BeanUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/reference/properties.md} lists exactly the {@code llm.throttle} properties
 * there are: the global ones of the configuration metadata the build generates for every
 * module (with its additional metadata), with the metadata's type and default, and the
 * ones under a client and under a tenant, which the metadata cannot list (they sit below
 * map keys), as the property classes bind them.
 */
class PropertiesReferenceTests {

    /** The placeholder the page writes for the keys of each map-valued property. */
    private static final Map<String, String> MAP_KEYS = Map.of("models", "MODEL", "deployments", "DEPLOYMENT");

    @Test
    void globalPropertiesAreThoseOfTheMetadataWithTheirTypesAndDefaults() throws IOException {
        Map<String, JsonNode> metadata = ConfigurationMetadata.properties();
        List<List<String>> rows = ReferencePage.read("properties.md").rows("Global");
        Map<String, List<String>> documented = new LinkedHashMap<>();
        rows.forEach((row) -> documented.put(ReferencePage.code(row.get(0)), row));
        assertThat(documented).as("documented properties").hasSize(rows.size());
        assertThat(new TreeSet<>(documented.keySet())).as("properties.md, Global, against the metadata")
            .isEqualTo(new TreeSet<>(metadata.keySet()));
        documented.forEach((name, row) -> {
            JsonNode property = metadata.get(name);
            assertThat(ReferencePage.code(row.get(1))).as("type of %s", name)
                .isEqualTo(simpleType(property.path("type").asString()));
            JsonNode value = property.path("defaultValue");
            String defaultValue = row.get(2).isEmpty() ? null : ReferencePage.code(row.get(2));
            assertThat(defaultValue).as("default of %s", name)
                .isEqualTo(value.isMissingNode() ? null : value.asString());
            assertThat(row.get(3)).as("description of %s", name).isNotBlank();
        });
    }

    @Test
    void clientPropertiesAreThoseAClientBinds() throws IOException {
        Set<String> bound = new TreeSet<>();
        walk(ClientProperties.class, "", bound);
        assertThat(documented("Per client", bound)).as("properties.md, Per client, against ClientProperties")
            .isEqualTo(bound);
    }

    @Test
    void tenantPropertiesAreThoseATenantBinds() throws IOException {
        Set<String> bound = new TreeSet<>();
        walk(LlmThrottleProperties.TenantOverride.class, "", bound);
        assertThat(documented("Per tenant", bound)).as("properties.md, Per tenant, against TenantOverride")
            .isEqualTo(bound);
    }

    @Test
    void bindablePropertiesAreFoundBelowMapsAndNestedGroups() {
        Set<String> bound = new TreeSet<>();
        walk(ClientProperties.class, "", bound);
        assertThat(bound)
            .contains("api-key", "default-headers", "default-limits.max-concurrency", "models.MODEL.fallback",
                    "models.MODEL.deployments.DEPLOYMENT.base-url", "retry.max-retries", "count-tokens.timeout",
                    "tokens-per-month")
            .doesNotContain("models", "retry", "class");
    }

    /**
     * The names a section documents; {@code PREFIX.*} stands for every bound name under
     * that prefix.
     */
    private static Set<String> documented(String section, Set<String> bound) throws IOException {
        Set<String> documented = new TreeSet<>();
        for (List<String> row : ReferencePage.read("properties.md").rows(section)) {
            for (String name : ReferencePage.names(row.get(0))) {
                if (name.endsWith(".*")) {
                    String prefix = name.substring(0, name.length() - 1);
                    List<String> under = bound.stream().filter((candidate) -> candidate.startsWith(prefix)).toList();
                    assertThat(under).as("properties under %s", name).isNotEmpty();
                    documented.addAll(under);
                }
                else {
                    assertThat(documented.add(name)).as("%s documented once", name).isTrue();
                }
            }
        }
        return documented;
    }

    /** Every property a JavaBean of the configuration binds, as its kebab-case path. */
    private static void walk(Class<?> type, String prefix, Set<String> names) {
        for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
            if (descriptor.getReadMethod() == null || "class".equals(descriptor.getName())) {
                continue;
            }
            String name = prefix + kebab(descriptor.getName());
            Type generic = descriptor.getReadMethod().getGenericReturnType();
            Class<?> raw = descriptor.getPropertyType();
            if (Map.class.isAssignableFrom(raw) && generic instanceof ParameterizedType map
                    && map.getActualTypeArguments()[1] instanceof Class<?> value && isGroup(value)) {
                String key = MAP_KEYS.get(descriptor.getName());
                assertThat(key).as("placeholder of the keys of %s", name).isNotNull();
                walk(value, name + "." + key + ".", names);
            }
            else if (isGroup(raw)) {
                walk(raw, name + ".", names);
            }
            else if (descriptor.getWriteMethod() != null) {
                names.add(name);
            }
        }
    }

    /** Whether a property's type is a group of properties rather than a value. */
    private static boolean isGroup(Class<?> type) {
        return type.getName().startsWith("io.github.llmthrottle.autoconfigure.") && !type.isEnum();
    }

    private static String kebab(String name) {
        return name.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
    }

    /** {@code java.util.Map<java.lang.String,a.b.C$D>} as {@code Map<String, D>}. */
    private static String simpleType(String type) {
        return type.replaceAll("[\\w.]+\\.(?=\\w)", "").replaceAll("\\w+\\$", "").replace(",", ", ");
    }

}
