package org.apache.storm.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.Principal;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.security.auth.Subject;
import org.apache.storm.Config;
import org.apache.storm.blobstore.BlobStore;
import org.apache.storm.generated.InvalidTopologyException;
import org.apache.storm.generated.KeyNotFoundException;
import org.apache.storm.generated.ReadableBlobMeta;
import org.apache.storm.networktopography.DNSToSwitchMapping;
import org.apache.storm.networktopography.DefaultRackDNSToSwitchMapping;
import org.apache.storm.security.auth.ReqContext;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.Test;

/** What the shim's validation, blob-map checks, rack mapping and request context do beyond Storm's own tests. */
class ConfigValidationBehaviourTest {

    public static class KeysWithNotConf {
        @ConfigValidationAnnotations.IsInteger
        public static final String COUNT = "test.count";

        @NotConf
        @ConfigValidationAnnotations.IsInteger
        public static final String NOT_A_KEY = "test.not.a.key";
    }

    @Test
    void theErrorNamesTheKeyAndTheValue() {
        Map<String, Object> conf = new HashMap<>();
        conf.put(Config.TOPOLOGY_WORKERS, "four");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConfigValidation.validateTopoConf(conf));
        assertTrue(e.getMessage().contains("topology.workers") && e.getMessage().contains("four"), e.getMessage());
    }

    @Test
    void onlyTheKeysTheMapHoldsAreChecked() {
        // STORM_OCI_CGROUP_ROOT is @NotNull in Storm; absent, it does not fail.
        ConfigValidation.validateFields(new HashMap<>());
        Map<String, Object> conf = new HashMap<>();
        conf.put(Config.STORM_OCI_CGROUP_ROOT, null);
        assertThrows(IllegalArgumentException.class, () -> ConfigValidation.validateFields(conf));
    }

    @Test
    void notConfFieldsAreSkippedAndFieldNamesResolve() {
        Map<String, Object> conf = new HashMap<>();
        conf.put(KeysWithNotConf.NOT_A_KEY, "not an integer");
        List<Class<?>> classes = Collections.singletonList(KeysWithNotConf.class);
        ConfigValidation.validateFields(conf, classes);
        conf.put(KeysWithNotConf.COUNT, 1.5);
        assertThrows(IllegalArgumentException.class, () -> ConfigValidation.validateFields(conf, classes));
        assertThrows(IllegalArgumentException.class, () -> ConfigValidation.validateField("COUNT", conf, classes));
        assertThrows(IllegalArgumentException.class, () -> ConfigValidation.validateField("NO_SUCH_FIELD", conf, classes));
        assertEquals(Config.class, ConfigValidation.getConfigClasses().get(0));
    }

    @Test
    void blobOptionsOfTheWrongTypeAreRejected() {
        Map<String, Object> options = new HashMap<>();
        options.put("localname", 5);
        Map<String, Object> conf = new HashMap<>();
        conf.put(Config.TOPOLOGY_BLOBSTORE_MAP, Collections.singletonMap("key1", options));
        BlobStore store = new BlobStore() {
            @Override
            public ReadableBlobMeta getBlobMeta(String key, Subject who) throws KeyNotFoundException {
                return new ReadableBlobMeta();
            }
        };
        InvalidTopologyException e = assertThrows(InvalidTopologyException.class,
                () -> Utils.validateTopologyBlobStoreMap(conf, store));
        assertTrue(e.get_msg().contains("localname"), e.get_msg());
        options.put("localname", "file.txt");
        assertThrows(InvalidTopologyException.class, () -> Utils.validateTopologyBlobStoreMap(conf),
                "without a blob store the one-argument form refuses a non-empty map");
    }

    @Test
    void everyHostIsOnTheDefaultRack() {
        DefaultRackDNSToSwitchMapping mapping = new DefaultRackDNSToSwitchMapping();
        Map<String, String> racks = mapping.resolve(Arrays.asList("a", "b"));
        assertEquals(DNSToSwitchMapping.DEFAULT_RACK, racks.get("a"));
        assertEquals(DNSToSwitchMapping.DEFAULT_RACK, racks.get("b"));
        assertEquals(racks, mapping.getSwitchMap());
        assertTrue(mapping.isSingleSwitch());
        assertTrue(mapping.dumpTopology().contains("/default-rack: a b"), mapping.dumpTopology());
    }

    @Test
    void theRequestContextIsPerThreadAndResets() throws Exception {
        ReqContext.reset();
        ReqContext mine = ReqContext.context();
        assertSame(mine, ReqContext.context());
        assertNull(mine.principal());
        Principal alice = () -> "alice";
        Subject subject = new Subject();
        subject.getPrincipals().add(alice);
        mine.setSubject(subject);
        assertSame(alice, mine.principal());
        mine.setRealPrincipal(() -> "bob");
        assertTrue(mine.isImpersonating());
        ReqContext[] other = new ReqContext[1];
        Thread t = new Thread(() -> other[0] = ReqContext.context());
        t.start();
        t.join();
        assertNotEquals(mine.requestID(), other[0].requestID());
        ReqContext.reset();
        assertNotEquals(mine.requestID(), ReqContext.context().requestID());
    }
}
