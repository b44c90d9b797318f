package io.github.llmthrottle.docs;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata of llm-throttle's properties as an IDE reads it: the
 * {@code llm.throttle.*} properties of every module's generated
 * {@code META-INF/spring-configuration-metadata.json} (the core auto-configuration's, the
 * Redis store's), merged.
 */
public final class ConfigurationMetadata {

    private static final String LOCATION = "META-INF/spring-configuration-metadata.json";

    private ConfigurationMetadata() {
    }

    /**
     * The {@code llm.throttle.*} properties of every module's metadata, each described
     * once.
     * @return each property's metadata by its name, in name order
     * @throws IOException when a module's metadata cannot be read
     */
    public static Map<String, JsonNode> properties() throws IOException {
        Map<String, JsonNode> properties = new TreeMap<>();
        JsonMapper json = JsonMapper.builder().build();
        for (URL metadata : Collections.list(ConfigurationMetadata.class.getClassLoader().getResources(LOCATION))) {
            try (InputStream in = metadata.openStream()) {
                for (JsonNode property : json.readTree(in).path("properties")) {
                    String name = property.path("name").asString();
                    if (name.startsWith("llm.throttle.")) {
                        assertThat(properties.put(name, property)).as("%s described by one module", name).isNull();
                    }
                }
            }
        }
        assertThat(properties).as("llm.throttle properties in the generated metadata").isNotEmpty();
        return properties;
    }

}
