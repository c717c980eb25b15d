import { ListSkeleton } from "@/components/dashboard/list/list-skeleton.tsx";

export default function Loading() {
  return <ListSkeleton title="Traces" />;
}
