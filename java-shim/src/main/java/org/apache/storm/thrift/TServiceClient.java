package org.apache.storm.thrift;

/**
 * Root of Storm's Thrift service clients (relocated Thrift's {@code TServiceClient}). Egret's
 * clients do not speak Thrift; the class exists so that {@code Nimbus.Client} has Storm's
 * superclass.
 */
public abstract class TServiceClient {
    protected TServiceClient() {
    }
}
