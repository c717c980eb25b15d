import { ListSkeleton } from "@/components/dashboard/list-skeleton.tsx";

export default function Loading() {
  return <ListSkeleton title="Knowledge" />;
}
