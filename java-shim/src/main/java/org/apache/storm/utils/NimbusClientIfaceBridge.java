package org.apache.storm.utils;

import org.apache.storm.generated.Nimbus;

/**
 * Makes {@link NimbusClient} carry both descriptors of {@code getClient()}: Storm 1.x jars
 * call {@code getClient()Lorg/apache/storm/generated/Nimbus$Client;}, Storm 2.x jars
 * {@code getClient()Lorg/apache/storm/generated/Nimbus$Iface;}. NimbusClient overrides this
 * method covariantly, so the compiler emits the Iface bridge in NimbusClient itself.
 */
interface NimbusClientIfaceBridge {
    Nimbus.Iface getClient();
}
