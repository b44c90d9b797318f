package io.github.llmthrottle.store;

/**
 * The keys of the buckets, one name per component joined with {@code :}, each component
 * escaped ({@code %} as {@code %25}, {@code :} as {@code %3A}, <code>{</code> and
 * <code>}</code> as {@code %7B} and {@code %7D}) so that no two different client, model
 * and tenant names can share a key ({@code a:b} + {@code c} is not {@code a} +
 * {@code b:c}). A model's keys, its tenants' included, start with the Redis Cluster hash
 * tag <code>{client:model}</code>, so that one admission's buckets are in one slot, as a
 * script that takes them all needs ({@link RedisBucketScript}).
 */
public final class BucketKeys {

    private BucketKeys() {
    }

    /** The key prefix of a model's buckets. */
    public static String model(String client, String model) {
        return "{" + escape(client) + ":" + escape(model) + "}";
    }

    /** The key prefix of a tenant's buckets on a model. */
    public static String tenant(String modelKey, String tenant) {
        return modelKey + ":tenant:" + escape(tenant);
    }

    public static String escape(String name) {
        if (name.indexOf(':') < 0 && name.indexOf('%') < 0 && name.indexOf('{') < 0 && name.indexOf('}') < 0) {
            return name;
        }
        return name.replace("%", "%25").replace(":", "%3A").replace("{", "%7B").replace("}", "%7D");
    }

}
