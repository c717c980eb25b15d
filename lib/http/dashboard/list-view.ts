// What a dashboard list page hands its React side: plain data (no server imports), so server and
// client components can both take it.

/** A choice a select filter offers. */
export interface FilterOption {
  value: string;
  label: string;
}

/** One control of a list's filter bar, with the value the URL gives it. */
export interface FilterField {
  name: string;
  label: string;
  control: "select" | "text" | "date";
  /** The value shown: what the URL says when it is a valid filter, else nothing. */
  value?: string;
  /** A select's choices. */
  options?: readonly FilterOption[];
  placeholder?: string;
}

/** A list's filter bar: a GET form to `action` keeping the current order (`sort`, `order`). */
export interface FilterBarModel {
  action: string;
  sort?: string;
  order?: string;
  fields: FilterField[];
}

/** The pager's state: keyset cursors (`next`/`prev`), or page numbers when `numbered`. */
export interface TablePage {
  next: string | null;
  prev: string | null;
  total: { count: number; capped: boolean };
  page: number;
  /** Pages are numbered (`?page=`), not cursors: the links change only the page number. */
  numbered?: boolean;
}

export interface TableSort {
  field: string;
  order: "asc" | "desc";
}

/** Everything the list pattern renders around a page's rows. */
export interface ListView {
  /** What was wrong with the URL (shown above the list, never thrown). */
  problems: string[];
  bar: FilterBarModel;
  page: TablePage;
  sort: TableSort;
  /** An admin's list: everyone's rows, with the owner column and the user filter. */
  showUser: boolean;
  /** Some filter is on: "no rows" means "none match", not "none yet". */
  filtered: boolean;
}
