package dev.egret.instance;

import dev.egret.proto.Grouping;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.task.WorkerTopologyContext;
import org.apache.storm.tuple.Fields;

/**
 * The routing table of one emitting task: for each stream its component declared, the
 * subscriptions and their groupings. Built once at task start (custom groupings are
 * deserialized and prepared then); immutable afterwards, so safe for concurrent emits.
 *
 * <p>It turns a stream's groupings into target task ids in the emitting JVM; not to be
 * confused with the stream manager's router ({@code stream-manager/src/router.rs}), which
 * only delivers each tuple to the task id this class chose.
 */
final class GroupingRouter {
    private static final class Route {
        final String subscriber;
        final TargetChooser chooser;

        Route(String subscriber, TargetChooser chooser) {
            this.subscriber = subscriber;
            this.chooser = chooser;
        }
    }

    private final String component;
    private final TopologyView view;
    private final Map<String, List<Route>> routes = new HashMap<>();

    GroupingRouter(TopologyView view, String component, WorkerTopologyContext context,
           Map<Integer, Integer> taskContainer, int container) {
        this.view = view;
        this.component = component;
        Map<String, Fields> streams = view.componentToStreamToFields().get(component);
        if (streams == null) {
            return;
        }
        for (Map.Entry<String, Fields> e : streams.entrySet()) {
            String stream = e.getKey();
            List<Route> list = new ArrayList<>();
            for (TopologyView.Subscription s : view.subscribers(component, stream)) {
                if (s.targetTasks.isEmpty()) {
                    continue;
                }
                list.add(new Route(s.component, chooser(s, e.getValue(), context, stream, taskContainer, container)));
            }
            routes.put(stream, list);
        }
    }

    private TargetChooser chooser(TopologyView.Subscription s, Fields outputFields, WorkerTopologyContext context,
                                  String stream, Map<Integer, Integer> taskContainer, int container) {
        Grouping g = s.grouping;
        switch (g.getKindCase()) {
            case FIELDS:
                return Groupings.fields(outputFields, g.getFields().getFieldsList(), s.targetTasks);
            case ALL:
                return Groupings.all(s.targetTasks);
            case NONE:
                return Groupings.none(s.targetTasks);
            case DIRECT:
                return Groupings.DIRECT;
            case CUSTOM_SERIALIZED:
                return Groupings.custom(g.getCustomSerialized().toByteArray(), context,
                        new GlobalStreamId(component, stream), s.targetTasks);
            case LOCAL_OR_SHUFFLE:
                return Groupings.localOrShuffle(s.targetTasks, taskContainer, container);
            case SHUFFLE:
            default:
                return Groupings.shuffle(s.targetTasks);
        }
    }

    /** A stream and its routes, as last looked up. */
    private static final class LastRoutes {
        final String stream;
        final List<Route> routes;

        LastRoutes(String stream, List<Route> routes) {
            this.stream = stream;
            this.routes = routes;
        }
    }

    /**
     * The last lookup: emits mostly go on one stream, named by one string instance (a
     * constant), which then skips the map. Racy on purpose: the pair is immutable, and any
     * pair a thread sees is a right one.
     */
    private LastRoutes last;

    private List<Route> routesOf(String stream) {
        LastRoutes l = last;
        if (l != null && l.stream == stream) {
            return l.routes;
        }
        List<Route> r = routes.get(stream);
        if (r == null) {
            throw new IllegalArgumentException("No output fields defined for component:stream "
                    + component + ":" + stream);
        }
        last = new LastRoutes(stream, r);
        return r;
    }

    /** The tasks a regular emit goes to, ascending by subscription then grouping order. */
    List<Integer> route(int sourceTask, String stream, List<Object> values) {
        List<Route> list = routesOf(stream);
        if (list.isEmpty()) {
            return Collections.emptyList();
        }
        if (list.size() == 1) {
            return list.get(0).chooser.choose(sourceTask, values);
        }
        List<Integer> out = new ArrayList<>();
        for (Route r : list) {
            out.addAll(r.chooser.choose(sourceTask, values));
        }
        return out;
    }

    /**
     * Validates a direct emit: the target task must belong to a subscriber with a direct
     * grouping. A task of a component that does not subscribe gets nothing (as Storm).
     *
     * @return true when the tuple must be sent to {@code targetTask}
     */
    boolean routeDirect(String stream, int targetTask) {
        List<Route> list = routesOf(stream);
        if (!view.isDirectStream(component, stream)) {
            throw new IllegalArgumentException("Cannot emitDirect to stream " + stream + " of " + component
                    + ": it was not declared as a direct stream");
        }
        String target = view.componentOf(targetTask);
        for (Route r : list) {
            if (r.subscriber.equals(target)) {
                if (r.chooser != Groupings.DIRECT) {
                    throw new IllegalArgumentException("Cannot emitDirect to a task expecting a regular grouping");
                }
                return true;
            }
        }
        return false;
    }
}
